"""Pictures, voice notes and documents: from a platform's attachment to what a turn reads.

    fetch.py      reading a download under a byte cap and a time limit (adapters use it)
    kinds.py      what a file is, from its first bytes, never from its declared type
    images.py     pictures checked against bombs and scaled down for the model
    documents.py  the text of plain text, Markdown, CSV and PDF files, within a budget
    audio.py      how long a voice note is, read from its container
    servers.py    the OpenAI-compatible transcription and speech endpoints
    prepare.py    one message's attachments made into the turn's text and pictures

Media bytes live in memory only: nothing here writes a file.
"""
