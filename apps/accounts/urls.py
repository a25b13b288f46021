from django.urls import path

from apps.accounts import apis

urlpatterns = [
    path("auth/token/", apis.TokenApi.as_view(), name="auth-token"),
    path("tokens/", apis.ApiTokenListApi.as_view(), name="token-list"),
    path("tokens/<int:token_id>/", apis.ApiTokenDetailApi.as_view(), name="token-detail"),
    path("users/", apis.UserCreateApi.as_view(), name="user-create"),
    path("teams/", apis.TeamListApi.as_view(), name="team-list"),
    path("teams/<int:team_id>/", apis.TeamDetailApi.as_view(), name="team-detail"),
    path("teams/<int:team_id>/members/", apis.TeamMembersApi.as_view(), name="team-members"),
    path("teams/<int:team_id>/members/<int:user_id>/", apis.TeamMemberDetailApi.as_view(), name="team-member"),
]
