"""The session summary DAG (DESIGN "Session summary DAG"): summaries of conversations, kept as notes in the owner's
personal vault, with lossless pointers to what they summarise (messages, or the lower summaries they condense);
temporal questions walk them. `write` summarises a conversation, `condense` builds weeks and months on top,
`selectors` reads them for their owner, `walk` brings them to a "what changed" question."""
