"""Ingest: a notes folder → notes → passages → embedded points in the store.

``notes`` walks the folder and decodes files, ``parse`` reads one note (front matter, header, session),
``formats`` turns PDF, e-mail, web pages and Word files into notes, ``markdown`` and ``chunking`` cut a
note into passages, ``indexing`` syncs them into a campaign, ``uploads`` saves what a player uploads.
"""
