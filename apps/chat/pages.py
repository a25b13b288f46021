from django.urls import path

from apps.chat import views

urlpatterns = [
    path("chat/", views.chat_page, name="chat-page"),
    path("chat/send/", views.chat_send, name="chat-send"),
    path("chat/stream/<int:message_id>/", views.chat_stream, name="chat-stream"),
]
