from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser
from django.db import connection
from tqdm import tqdm

from apps.llm.embeddings import current_model
from apps.notes.models import Chunk
from apps.notes.services.chunks import chunks_embed_pending

INDEX_SQL = (
    "CREATE INDEX IF NOT EXISTS chunk_embedding_hnsw ON notes_chunk "
    "USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)"
)


class Command(BaseCommand):
    help = "Re-embed every chunk with the configured embedding model (after changing DESIREPATH_EMBEDDING_MODEL)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=256)

    def handle(self, *args: Any, **options: Any) -> None:
        model, dims = current_model(), int(settings.EMBEDDING_DIMENSIONS)
        if self._column_dimensions() != dims:
            self.stdout.write(f"vector column → vector({dims}); old vectors cleared, index rebuilt afterwards")
            with connection.cursor() as cursor:
                cursor.execute("DROP INDEX IF EXISTS chunk_embedding_hnsw")
                cursor.execute("UPDATE notes_chunk SET embedding = NULL, embedding_model = ''")
                cursor.execute(f"ALTER TABLE notes_chunk ALTER COLUMN embedding TYPE vector({dims})")
        pending = Chunk.objects.exclude(embedding_model=model).count()
        bar = tqdm(total=pending, unit="chunk", desc=f"embedding with {model}")
        while True:
            done = chunks_embed_pending(batch=options["batch"], limit=options["batch"])
            if not done:
                break
            bar.update(done)
        bar.close()
        with connection.cursor() as cursor:
            cursor.execute(INDEX_SQL)
        self.stdout.write(self.style.SUCCESS(f"{pending} chunks embedded with {model}"))

    def _column_dimensions(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'notes_chunk'::regclass AND attname = 'embedding'"
            )
            return int(cursor.fetchone()[0])
