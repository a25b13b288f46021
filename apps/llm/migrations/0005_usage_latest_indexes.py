from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("llm", "0004_usage_slot_embedding"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="modelusage",
            index=models.Index(fields=["slot", "model", "-created_at"], name="usage_latest_per_model"),
        ),
        migrations.AddIndex(
            model_name="modelusage",
            index=models.Index(fields=["slot", "purpose", "-created_at"], name="usage_latest_per_purpose"),
        ),
    ]
