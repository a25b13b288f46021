from django.db import migrations


class Migration(migrations.Migration):
    """Pre-warming's habits and cache belong to chat: the tables move there (apps/chat/migrations/0005)."""

    dependencies = [("graph", "0006_stemmed_doors")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel("QuestionRhythm"), migrations.DeleteModel("PrewarmedContext")],
            database_operations=[],
        )
    ]
