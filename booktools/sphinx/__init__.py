"""What ``_config.yml`` loads: the Sphinx extensions of the HTML and PDF editions."""
