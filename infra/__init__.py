"""The AWS resources around the Chalice app, generated from the code (`python -m infra.generate`)."""
