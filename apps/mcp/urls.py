from django.urls import path

from apps.mcp import views

urlpatterns = [path("mcp/", views.McpApi.as_view(), name="mcp")]
