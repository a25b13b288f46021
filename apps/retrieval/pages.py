from django.urls import path

from apps.retrieval import views

urlpatterns = [
    path("", views.search_page, name="search-page"),
]
