"""The Streamlit glue the pages share: state and caches, the sidebar, routing, the settings form,
charts and the campaign's evaluation view. Imported by ``streamlit_app.py`` and ``pages/``, never a page
itself; the library (``rag``) never imports it."""
