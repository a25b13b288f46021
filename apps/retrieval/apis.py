from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.auth import actor
from apps.core.serializers import errors
from apps.retrieval.filed import search_results
from apps.retrieval.hooks import searched
from apps.retrieval.search import hybrid_search
from apps.retrieval.serializers import SearchOut, SearchQuery
from apps.vaults.scope import scope_for


class SearchApi(APIView):
    @extend_schema(
        parameters=[SearchQuery],
        responses={200: SearchOut, **errors(400, 404)},
        summary="Hybrid search (meaning + keywords) over the vaults you may read; the Librarian's filed notes last",
    )
    def get(self, request: Request) -> Response:
        query = SearchQuery(data={**request.query_params.dict(), "vault": request.query_params.getlist("vault")})
        query.is_valid(raise_exception=True)
        data = query.validated_data
        result = hybrid_search(
            scope=scope_for(actor(request), data.get("vault")),
            query=data["q"],
            k=data["k"],
            include_cold=data["include_cold"],
        )
        searched(user_id=actor(request).pk, query=data["q"])
        return Response(
            SearchOut({"results": search_results(user=actor(request), query=data["q"], hits=result.hits)}).data
        )
