"""What the harness draws over the page into each frame: the browser chrome (tabs, address
bar, bookmarks), the downloads bubble, an open select's list, and the helpers they share."""
