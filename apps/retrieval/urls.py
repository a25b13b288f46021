from django.urls import path

from apps.retrieval import apis

urlpatterns = [path("search/", apis.SearchApi.as_view(), name="search")]
