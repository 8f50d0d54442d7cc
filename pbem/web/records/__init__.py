"""The archive on the web: player pages, downloadable records, board images and the archive API."""
