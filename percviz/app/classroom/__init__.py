"""What makes percviz work in a lecture hall: files, autosave, export, keys, help, brush, generators."""
