"""Chronicler's library: notes → chunks → embeddings → Qdrant → retrieval → grounded answers.

Nothing heavy is imported here: ``import rag`` must stay instant for the CLI and the app.
"""
