from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from apps.accounts import signin
from apps.core.apis import healthz
from apps.core.metrics import metrics
from apps.evaluation.pages import learning_urls
from apps.feedback.admin import feedback_report_urls
from apps.insights.usage_page import discovery_urls

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    # Browsers ask for /favicon.ico whatever the page's <link rel="icon"> says.
    path("favicon.ico", lambda request: HttpResponsePermanentRedirect(static("img/favicon.svg"))),
    path("metrics", metrics, name="metrics"),
    path("admin/", include(feedback_report_urls)),
    path("admin/", include(learning_urls)),
    path("admin/", include(discovery_urls)),
    path("admin/login/", signin.admin_login),  # before the admin's own: local login off sends it to /login/
    path("admin/", admin.site.urls),
    path("login/", signin.LoginPage.as_view(), name="login"),
    path("oidc/authenticate/", signin.SsoStart.as_view(), name="oidc_authentication_init"),
    path("oidc/callback/", signin.SsoCallback.as_view(), name="oidc_authentication_callback"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("", include("apps.mcp.urls")),
    path("api/", include("apps.accounts.urls")),
    path("api/", include("apps.vaults.urls")),
    path("api/", include("apps.notes.urls")),
    path("api/", include("apps.retrieval.urls")),
    path("api/", include("apps.llm.urls")),
    path("api/", include("apps.chat.urls")),
    path("api/", include("apps.feedback.urls")),
    path("api/", include("apps.librarian.urls")),
    path("api/", include("apps.graph.urls")),
    path("api/", include("apps.insights.urls")),
    path("", include("apps.accounts.pages")),
    path("", include("apps.vaults.pages")),
    path("", include("apps.chat.pages")),
    path("", include("apps.retrieval.pages")),
    path("", include("apps.notes.pages")),
    path("", include("apps.graph.pages")),
    path("", include("apps.insights.pages")),
    path("", include("apps.llm.pages")),
]

handler404 = "apps.core.apis.api_not_found"
handler400 = "apps.core.apis.api_bad_request"
handler500 = "apps.core.apis.api_server_error"
