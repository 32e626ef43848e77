"""What builds the book around the package: the coverage map, the course material, the API table."""
