from django.db import migrations


class Migration(migrations.Migration):
    """Doors are English stems now: the counts of plain words go, and the next extraction sweep recounts every
    vault by stem (`graph_extract_pending` refreshes a vault that has no counts)."""

    dependencies = [("graph", "0005_conversation")]

    operations = [migrations.RunSQL("DELETE FROM graph_termcount", reverse_sql=migrations.RunSQL.noop)]
