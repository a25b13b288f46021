from django.urls import path

from apps.llm import views

urlpatterns = [path("models/", views.models_page, name="models-page")]
