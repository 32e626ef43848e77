"""JupyterLab on the repository, its kernel extension, and the live-code servers."""
