from rest_framework import serializers

from apps.chat.models import Fallback, Status
from apps.graph.serializers import EdgeOut


class ContextSourceOut(serializers.Serializer):
    note = serializers.IntegerField()
    chunk = serializers.IntegerField()
    vault = serializers.IntegerField()
    path = serializers.CharField()


class ChoiceOut(serializers.Serializer):
    id = serializers.IntegerField(help_text="the vote: DELETE /api/feedback/{id}/ undoes it")
    signal = serializers.CharField(help_text="one of the choices POST /api/feedback/ takes")


class ContextItemOut(serializers.Serializer):
    id = serializers.IntegerField()
    text = serializers.CharField()
    readable = serializers.CharField(
        allow_blank=True, help_text="the passage as plain text on one line: links by their labels, no Markdown marks"
    )
    href = serializers.CharField(
        allow_blank=True, help_text="its note's page at the passage's section (`#heading`); empty when the note is gone"
    )
    byline = serializers.CharField(
        allow_blank=True, help_text="its note's byline (who, when), when the passage is not the note's first"
    )
    decision = serializers.CharField(
        allow_blank=True, help_text="what its note decided (its decision section), when the passage does not say it"
    )
    properties = serializers.CharField(
        allow_blank=True,
        help_text="its note's properties, one `key: value` line each, when the passage does not hold them",
    )
    note = serializers.IntegerField(allow_null=True)
    vault = serializers.IntegerField()
    path = serializers.CharField()
    title = serializers.CharField()
    section = serializers.CharField(
        allow_blank=True, help_text="the nearest heading of the section it was read from; empty for the note's top"
    )
    sources = ContextSourceOut(many=True, help_text="the passages it was read from, the main one first")
    score = serializers.IntegerField(help_text="the gate's score, 0 to 5")
    provenance = serializers.CharField()
    speculative = serializers.BooleanField(help_text="an explorer's unit: shown to be rated, never answered from")
    survived = serializers.BooleanField(help_text="passed the gate and was given to the answer")
    citation = serializers.IntegerField(allow_null=True, help_text="its [n] in the answer, for survivors")
    signals = serializers.ListField(child=serializers.CharField(), help_text="the feedback its asker gave it")
    choice = ChoiceOut(allow_null=True, help_text="its asker's current choice on it (one at most), to undo by `id`")


class GateOut(serializers.Serializer):
    model = serializers.CharField()
    threshold = serializers.IntegerField(allow_null=True)
    passed_by = serializers.ChoiceField(
        choices=["score", "search order"],
        help_text="score: what reached the threshold passed; search order: among notes the local scorer only decides "
        "whether anything passes (a note reached the threshold), the search's order what, within the budget",
    )


class ResearchOut(serializers.Serializer):
    ran = serializers.BooleanField()
    reason = serializers.CharField()
    sub_questions = serializers.ListField(child=serializers.CharField())
    paths = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="the sub-questions offered to explore further: those a person could send, not keyword queries",
    )
    dispatches = serializers.IntegerField(help_text="sub-questions searched, the hidden ones included")
    hidden = serializers.IntegerField(
        required=False,
        help_text="searched sub-questions left out of sub_questions: rewordings of the question that found nothing new",
    )
    cancelled = serializers.BooleanField()
    prewarmed = serializers.BooleanField(required=False, help_text="present when the context was prepared early")


class ChatAnswerOut(serializers.Serializer):
    conversation = serializers.IntegerField()
    message = serializers.IntegerField()
    answer = serializers.CharField()
    answer_html = serializers.CharField(
        help_text="the answer as HTML: its Markdown rendered, any raw HTML escaped, each [n] linked to its note"
    )
    grounded = serializers.BooleanField()
    fallback = serializers.ChoiceField(choices=Fallback.choices, allow_null=True)
    resolved_query = serializers.CharField(help_text="what was searched after reading the conversation")
    significance = serializers.CharField()
    notices = serializers.ListField(child=serializers.CharField(), help_text="degradations you were told about")
    status = serializers.ChoiceField(choices=Status.choices)
    context = ContextItemOut(many=True, help_text="the candidates that survived the gate")  # type: ignore[assignment]
    candidates = ContextItemOut(many=True, help_text="every candidate the gate rated")
    picked = ContextItemOut(many=True, help_text="the passages the asker pointed to as what answers it")
    gate = GateOut()
    research = ResearchOut()
    prewarmed = serializers.BooleanField()


class ChatAnswerDetailOut(ChatAnswerOut):
    """The answer as far as it got, and why it is not complete: the question stays in the conversation."""

    detail = serializers.CharField()


class TurnOut(ChatAnswerOut):
    question = serializers.CharField()


class ConversationOut(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


class ConversationDetailOut(ConversationOut):
    vaults = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="the vaults a follow-up naming none searches (those last ticked that you still read); empty: all",
    )
    turns = TurnOut(many=True)


class ConversationCancelOut(serializers.Serializer):
    cancelled = serializers.IntegerField(help_text="answers told to skip their deep research")


class ExpansionSourceOut(ContextSourceOut):
    heading = serializers.CharField()
    text = serializers.CharField()


class PathEntityOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ExpansionPathOut(serializers.Serializer):
    intent = serializers.CharField(allow_null=True)
    entities = PathEntityOut(many=True)
    edges = EdgeOut(many=True)


class ExpansionOut(serializers.Serializer):
    item = serializers.IntegerField()
    sources = ExpansionSourceOut(many=True)
    path = ExpansionPathOut(help_text="the graph walk that produced the unit")
