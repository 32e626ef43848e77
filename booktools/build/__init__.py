"""The build commands of the Makefile: prebuild, PDF, slides, notebooks, dist, check."""
