"""The rules of SPEC.md, testable without HTTP."""
