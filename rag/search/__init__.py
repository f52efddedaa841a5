"""Search: question → ranked passages. ``retrieval`` runs and fuses the first stages (dense, keyword,
keyword with neighbours, first mention), then the optional reranker; ``first_mention`` and ``aliases``
are the campaign-aware stages it calls."""
