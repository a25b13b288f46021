from django.urls import path

from apps.notes import apis

urlpatterns = [
    path("vaults/<int:vault_id>/notes/", apis.VaultNotesApi.as_view(), name="vault-notes"),
    path("vaults/<int:vault_id>/attachments/", apis.VaultAttachmentsApi.as_view(), name="vault-attachments"),
    path("vaults/<int:vault_id>/import/", apis.VaultImportApi.as_view(), name="vault-import"),
    path("vaults/<int:vault_id>/jobs/", apis.VaultJobsApi.as_view(), name="vault-jobs"),
    path("vaults/<int:vault_id>/failures/", apis.VaultFailuresApi.as_view(), name="vault-failures"),
    path(
        "vaults/<int:vault_id>/embedding-models/",
        apis.VaultEmbeddingModelsApi.as_view(),
        name="vault-embedding-models",
    ),
    path("embedding-models/", apis.EmbeddingModelsApi.as_view(), name="embedding-models"),
    path("vaults/<int:vault_id>/export/", apis.VaultExportApi.as_view(), name="vault-export"),
    path("vaults/<int:vault_id>/coverage/", apis.VaultCoverageApi.as_view(), name="vault-coverage"),
    path("exports/<int:export_id>/", apis.ExportDetailApi.as_view(), name="export-detail"),
    path("exports/<int:export_id>/download/", apis.ExportDownloadApi.as_view(), name="export-download"),
    path("notes/<int:note_id>/", apis.NoteDetailApi.as_view(), name="note-detail"),
    path("notes/<int:note_id>/restore/", apis.NoteRestoreApi.as_view(), name="note-restore"),
    path("notes/<int:note_id>/purge/", apis.NotePurgeApi.as_view(), name="note-purge"),
    path("vaults/<int:vault_id>/corrections/", apis.VaultCorrectionsApi.as_view(), name="vault-corrections"),
    path("corrections/<int:correction_id>/", apis.CorrectionApi.as_view(), name="correction"),
    path("jobs/<int:job_id>/", apis.JobDetailApi.as_view(), name="job-detail"),
    path("jobs/<int:job_id>/retry/", apis.JobRetryApi.as_view(), name="job-retry"),
]
