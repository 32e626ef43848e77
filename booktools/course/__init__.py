"""For instructors: assignments, grading, leak scan, answer keys, the student edition."""
