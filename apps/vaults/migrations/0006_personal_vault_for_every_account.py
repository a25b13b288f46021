"""A personal vault for every account made before each new account got one whatever made it (`createsuperuser`,
`create_user`): the same vault, role and audit row as `personal_vault_ensure` gives."""

from django.db import migrations

MANAGER_PERMISSIONS = {
    "read_vault": "Read the vault's notes",
    "contribute_vault": "Write notes in the vault",
    "manage_vault": "Share, restore and purge in the vault",
}


def personal_vaults_make(apps, schema_editor):
    User = apps.get_model("auth", "User")
    Vault = apps.get_model("vaults", "Vault")
    without = User.objects.exclude(pk__in=Vault.objects.filter(is_personal=True).values("owner_id")).order_by("pk")
    if not without.exists():
        return
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    UserObjectPermission = apps.get_model("guardian", "UserObjectPermission")
    AuditEvent = apps.get_model("audit", "AuditEvent")
    vault_type, _ = ContentType.objects.get_or_create(app_label="vaults", model="vault")
    permissions = [
        Permission.objects.get_or_create(content_type=vault_type, codename=codename, defaults={"name": name})[0]
        for codename, name in MANAGER_PERMISSIONS.items()
    ]
    for user in without:
        vault = Vault.objects.create(name=f"{user.username} (personal)"[:200], owner=user, is_personal=True)
        UserObjectPermission.objects.bulk_create(
            UserObjectPermission(user=user, permission=permission, content_type=vault_type, object_pk=str(vault.pk))
            for permission in permissions
        )
        AuditEvent.objects.create(
            actor=user,
            actor_label=user.username,
            action="vault.create",
            object_type="vault",
            object_id=str(vault.pk),
            vault_id=vault.pk,
            changes={"name": vault.name, "personal": True},
        )


class Migration(migrations.Migration):
    dependencies = [
        ("vaults", "0005_row_level_security"),
        ("audit", "0001_initial"),
        ("guardian", "0003_remove_groupobjectpermission_guardian_gr_content_ae6aec_idx_and_more"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("auth", "0012_alter_user_first_name_max_length"),
    ]

    operations = [migrations.RunPython(personal_vaults_make, migrations.RunPython.noop)]
