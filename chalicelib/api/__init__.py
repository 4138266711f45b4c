"""One blueprint per resource; handlers decode, authorize, call the domain, render."""
