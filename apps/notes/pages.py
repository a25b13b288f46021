from django.urls import path

from apps.notes import editor, views

urlpatterns = [
    path("notes/<int:note_id>/", views.note_page, name="note-page"),
    path("notes/<int:note_id>/edit/", editor.note_edit_page, name="note-edit"),
    path("notes/<int:note_id>/delete/", editor.note_delete_page, name="note-delete-page"),
    path("notes/<int:note_id>/restore/", editor.note_restore_page, name="note-restore-page"),
    path("jobs/<int:job_id>/", views.job_page, name="job-page"),
    path("vaults/<int:vault_id>/", views.vault_page, name="vault-page"),
    path("vaults/<int:vault_id>/notes/new/", editor.note_new_page, name="note-new"),
    path("vaults/<int:vault_id>/coverage/", views.coverage_page, name="coverage-page"),
    path("vaults/<int:vault_id>/export/", views.export_start, name="export-start"),
    path("exports/<int:export_id>/", views.export_page, name="export-page"),
    path("vaults/<int:vault_id>/files/<path:path>", views.attachment_file, name="attachment-file"),
]
