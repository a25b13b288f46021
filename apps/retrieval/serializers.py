from django.conf import settings
from rest_framework import serializers


class SearchQuery(serializers.Serializer):
    q = serializers.CharField(allow_blank=True, trim_whitespace=False, help_text="what to look for")
    vault = serializers.ListField(
        child=serializers.IntegerField(),
        required=False,
        help_text="vault ids to search (repeat); default: every vault you may read",
    )
    k = serializers.IntegerField(default=10, min_value=1, max_value=settings.SEARCH_MAX_K)
    include_cold = serializers.BooleanField(default=False)


class SearchHitOut(serializers.Serializer):
    note = serializers.IntegerField()
    vault = serializers.IntegerField()
    path = serializers.CharField()
    title = serializers.CharField()
    chunk = serializers.IntegerField()
    snippet = serializers.CharField()
    snippet_text = serializers.CharField(
        help_text="the snippet as a reader meets it: Markdown marks dropped, wikilinks as their labels, «matches» kept"
    )
    score = serializers.FloatField()
    sources = serializers.ListField(child=serializers.ChoiceField(choices=["vector", "keyword"]))
    filed = serializers.BooleanField(
        help_text="the Librarian filed this note from a conversation; such notes come after the others unless the "
        "query asks about past conversations"
    )


class SearchOut(serializers.Serializer):
    results = SearchHitOut(many=True)
