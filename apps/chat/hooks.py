"""What chat lets higher apps act on (see apps/core/hooks.py)."""

from apps.core.hooks import Hook

# An answer was completed and saved (`message_id=`, the assistant's message), inside the answering transaction.
exchange_answered: Hook[..., object] = Hook("chat.exchange_answered")
