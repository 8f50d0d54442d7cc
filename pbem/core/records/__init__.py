"""Records: the public archive, what a seat or a spectator may see of a match, downloadable
records (export and import) and each seat's result."""
