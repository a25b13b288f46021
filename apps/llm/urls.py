from django.urls import path

from apps.llm import apis

urlpatterns = [path("usage/", apis.UsageApi.as_view(), name="usage")]
