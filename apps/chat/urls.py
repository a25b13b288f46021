from django.urls import path

from apps.chat import apis

urlpatterns = [
    path("chat/", apis.ChatApi.as_view(), name="chat"),
    path("context-items/<int:item_id>/expand/", apis.ExpandApi.as_view(), name="context-item-expand"),
    path("conversations/", apis.ConversationListApi.as_view(), name="conversation-list"),
    path("conversations/<int:conversation_id>/", apis.ConversationDetailApi.as_view(), name="conversation-detail"),
    path(
        "conversations/<int:conversation_id>/cancel/", apis.ConversationCancelApi.as_view(), name="conversation-cancel"
    ),
]
