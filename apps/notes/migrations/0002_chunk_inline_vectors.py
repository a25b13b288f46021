from django.db import migrations


class Migration(migrations.Migration):
    """Keep chunk rows (text + 384-d vector, ~2.7 KB) inline: TOASTed vectors halve exact-scan speed."""

    dependencies = [("notes", "0001_initial")]

    operations = [
        migrations.RunSQL(
            "ALTER TABLE notes_chunk SET (toast_tuple_target = 8160)",
            "ALTER TABLE notes_chunk RESET (toast_tuple_target)",
        )
    ]
