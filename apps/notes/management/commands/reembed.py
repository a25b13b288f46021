from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from apps.core.progress import progress_bar
from apps.llm.embeddings import current_model
from apps.notes.services.chunks import chunks_embed_pending
from apps.notes.vectors import chunks_without_vector, vectors_drop


class Command(BaseCommand):
    help = (
        "Embed every chunk that lacks a vector of the configured embedding model (after changing "
        "DESIREPATH_EMBEDDING_MODEL); `--drop MODEL` removes another model's vectors and index."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=256)
        parser.add_argument("--vault", type=int, help="only this vault's chunks")
        parser.add_argument("--drop", metavar="MODEL", help="remove this model's vectors (never the current one)")

    def handle(self, *args: Any, **options: Any) -> None:
        model = current_model()
        if options["drop"]:
            if options["drop"] == model:
                self.stderr.write(f"{model} is the configured model: its vectors are the ones search reads")
                return
            dropped = vectors_drop(options["drop"])
            self.stdout.write(self.style.SUCCESS(f"{dropped} vectors of {options['drop']} removed"))
            return
        vault_id = options["vault"]
        pending_chunks = chunks_without_vector(model)
        pending = (pending_chunks.filter(vault_id=vault_id) if vault_id else pending_chunks).count()
        bar = progress_bar(total=pending, unit="chunk", desc=f"embedding with {model}")
        while True:
            done = chunks_embed_pending(vault_id=vault_id, batch=options["batch"], limit=options["batch"])
            if not done:
                break
            bar.update(done)
        bar.close()
        self.stdout.write(self.style.SUCCESS(f"{pending} chunks embedded with {model}"))
