"""The poker room's stud engine (SPEC Part B): plain Python, no Django."""
