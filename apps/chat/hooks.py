"""What chat lets higher apps act on (see apps/core/hooks.py)."""

from typing import Any

from apps.core.hooks import Hook

# An answer was completed and saved (`message_id=`, the assistant's message), inside the answering transaction.
exchange_answered: Hook[..., object] = Hook("chat.exchange_answered")

# A question was stored (`user_id=`, `text=`, `message_id=`, the question's message), inside its transaction.
question_asked: Hook[..., object] = Hook("chat.question_asked")

# What the askers said of context items about to be shown (`items=`): each receiver returns item id → the keys it
# adds to that item's payload (`signals`, `choice`) and `picked` (the asker pointed to it as what answers).
items_feedback: Hook[..., dict[int, dict[str, Any]]] = Hook("chat.items_feedback")
