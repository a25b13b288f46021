from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.progress import progress_bar
from apps.notes.services.embedding_switch import (
    embedding_model_remove,
    embedding_switch_build,
    embedding_switch_progress,
    embedding_switch_start,
    embedding_switches,
)


class Command(BaseCommand):
    help = (
        "Switch the deployment's embedding model: build MODEL's vectors beside the active model's (search keeps "
        "using those), then swap. Without MODEL, show every model's progress. Run again after an interruption: it "
        "continues with the chunks still lacking a vector."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("model", nargs="?", help="e.g. local/all-mpnet-base-v2")
        parser.add_argument("--background", action="store_true", help="queue the build on the workers and return")
        parser.add_argument("--remove", action="store_true", help="drop MODEL's vectors (not the active model's)")

    def handle(self, *args: Any, **options: Any) -> None:
        model = options["model"]
        if not model:
            for progress in embedding_switches():
                self.stdout.write(f"{progress.model:40} {progress.state:9} {progress.embedded}/{progress.total} chunks")
            return
        if options["remove"]:
            try:
                self.stdout.write(f"{embedding_model_remove(model=model)} vectors of {model} removed")
            except ValueError as error:
                raise CommandError(str(error)) from None
            return
        embedding_switch_start(model=model, background=options["background"])
        if options["background"]:
            self.stdout.write(f"building {model} on the workers; `manage.py embedding_switch` shows progress")
            return
        progress = embedding_switch_progress(model=model)
        with progress_bar(total=progress.total, initial=progress.embedded, unit="chunk", desc=model) as bar:
            while progress.state == "building":
                progress = embedding_switch_build(model=model, batches=1)
                bar.update(progress.embedded - bar.n)
        self.stdout.write(self.style.SUCCESS(f"{model} is {progress.state}"))
