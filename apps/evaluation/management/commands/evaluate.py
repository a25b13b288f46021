import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from apps.core.local_models import is_local
from apps.core.progress import progress_bar
from apps.evaluation import corpus, locomo
from apps.evaluation.answerer import JudgeUnavailable
from apps.evaluation.calibration import calibrate, collect
from apps.evaluation.discovery import footstep_log, read_log, replay, scripted_log
from apps.evaluation.folds import (
    DESIRE_PATHS,
    GRID,
    PICK_GRID,
    conversation_measure,
    folds_report,
)
from apps.evaluation.fusion_fit import BM25_POINTS, calibrate_fusion, current_fusion, dev_vaults, measure
from apps.evaluation.learning import run_learning
from apps.evaluation.pipelines import PIPELINES
from apps.evaluation.replay import WINDOW, conversation_replay, curve_svg, replay_record, replay_report
from apps.evaluation.runner import eval_user, read_jsonl, run_locomo, run_vault
from apps.evaluation.significance_fit import calibrate_significance, groups, write_classifier
from apps.graph.relevance import GRAPH_FEATURES
from apps.llm.embeddings import current_model
from apps.llm.local_models import ModelConfigurationError, local_model
from apps.notes.models import Note
from apps.retrieval.relevance import FEATURES
from apps.retrieval.significance import CLASSIFIERS
from apps.vaults.chat_settings import DISCOVERY_TIERS

SHARED_EVAL = Path(settings.BASE_DIR).parent / "shared" / "eval"
LEARNING_PICK = ((False, "learning"), (True, "learning, pointing"))  # the buttons alone, then with picks
SAMPLE_QUERIES = Path(settings.BASE_DIR) / "samples" / "queries.jsonl"
SAMPLE_VAULT = Path(settings.BASE_DIR) / "samples" / "vault"


class Command(BaseCommand):
    help = (
        "Measure retrieval: `evaluate locomo` (LoCoMo dev split), `evaluate vault` (any Markdown folder), or fit the "
        "local relevance scorer with `evaluate calibrate` (LoCoMo dev only)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        modes = parser.add_subparsers(dest="dataset", required=True)
        conv = modes.add_parser("locomo", help="long conversations; evidence turns score the retrieval")
        conv.add_argument("--data", type=Path, default=SHARED_EVAL / "locomo" / "dev.json")
        conv.add_argument("--unit", choices=["turns", "sessions"], default="turns")
        conv.add_argument("--k", type=int, default=10, help="flat pipelines inject their top k (reported at 10)")
        conv.add_argument(
            "--learn",
            action="store_true",
            help="also replay half of each conversation's questions with simulated feedback and measure the other "
            "half before and after (`learning` in the JSON)",
        )
        conv.add_argument(
            "--folds",
            type=int,
            help="with --learn: choose every learning parameter on the other conversations and measure on the "
            "held-back ones, in this many folds (only this is run)",
        )
        conv.add_argument(
            "--pick",
            action="store_true",
            help="with --learn: the same replay twice, the second time with the asker pointing to a passage that "
            "answers when nothing shown did (only this is run); with --folds too, the folds' replays point",
        )
        conv.add_argument(
            "--replay",
            action="store_true",
            help="the learning curve: each conversation's questions in order, rated after each answer, against "
            "the same replay with learning off (only this is run)",
        )
        conv.add_argument("--chart", type=Path, help="with --replay: write the learning curve here as SVG")
        conv.add_argument("--window", type=int, default=WINDOW, help="with --replay: questions per rolling MRR")
        conv.add_argument("--conversations", type=int, help="only the first N conversations of the split")
        conv.add_argument(
            "--answers",
            type=Path,
            help="write each answering pipeline's answer beside the gold answer, its F1 and its sources, as JSONL",
        )
        conv.add_argument(
            "--judge",
            action="store_true",
            help="also grade each answer against the gold one with the scoring slot's model (CORRECT or WRONG)",
        )
        self._common(conv)
        cal = modes.add_parser("calibrate", help="fit the local relevance scorer on the LoCoMo dev split")
        cal.add_argument("--data", type=Path, default=SHARED_EVAL / "locomo" / "dev.json")
        cal.add_argument("--graph", action="store_true", help="the graph's scorer: full's candidates and features")
        cal.add_argument(
            "--significance",
            action="store_true",
            help="the significance classifier for the embedding model in use (dev questions against dev small talk)",
        )
        cal.add_argument(
            "--fusion",
            action="store_true",
            help="the keyword half's BM25 parameters and the fusion, chosen on the dev vaults leaving one out",
        )
        cal.add_argument("--corpora", type=Path, default=SHARED_EVAL.parent / "corpora")
        cal.add_argument("--model", help="with --significance or --fusion: fit for this embedding model")
        cal.add_argument("--json", type=Path, dest="json_out")
        cal.add_argument("--chatter", type=Path, default=SHARED_EVAL / "chatter-dev.jsonl")
        cal.add_argument(
            "--write", action="store_true", help="with --significance: store the fitted classifier for the model"
        )
        disc = modes.add_parser(
            "discovery", help="replay a footstep log over a vault: detection, screening and formation, day by day"
        )
        disc.add_argument("--notes", type=Path, default=SAMPLE_VAULT, help="the vault's folder (the sample vault)")
        disc.add_argument("--log", type=Path, help="a footstep log (JSON Lines); a scripted one over --notes otherwise")
        disc.add_argument("--days", type=int, default=42, help="days of the scripted log")
        disc.add_argument("--seed", type=int, default=7, help="the scripted log's seed")
        disc.add_argument(
            "--warmup", type=int, default=0, help="days of the log laid down as history before the daily tiers run"
        )
        disc.add_argument("--write-log", type=Path, help="also write the log replayed here")
        disc.add_argument(
            "--export-vault", type=int, help="write this vault's recorded footsteps to --write-log as a log, and stop"
        )
        for tier in DISCOVERY_TIERS:
            disc.add_argument(
                f"--{tier}-budget", type=int, default=settings.DISCOVERY_DAILY_CALLS[tier], help="calls a day"
            )
        disc.add_argument("--json", type=Path, dest="json_out")
        vault = modes.add_parser("vault", help="a folder of notes and queries {q, relevant: [paths], kind}")
        vault.add_argument("--notes", type=Path, required=True)
        vault.add_argument("--queries", type=Path, required=True)
        vault.add_argument(
            "--answers",
            type=Path,
            help="write each answering pipeline's answer beside the notes that answer its question, as JSONL",
        )
        self._common(vault)

    def _common(self, parser: Any) -> None:
        parser.add_argument("--pipeline", action="append", choices=sorted(PIPELINES), dest="pipelines")
        parser.add_argument("--chatter", type=Path, default=SHARED_EVAL / "chatter-dev.jsonl")
        parser.add_argument("--json", type=Path, dest="json_out")
        parser.add_argument(
            "--model",
            help="embed the notes and questions with this model (a registered `local/...` one or a litellm name); "
            "the deployment's DESIREPATH_EMBEDDING_MODEL otherwise",
        )

    def _learning_run(self, conversations: list[locomo.Conversation], unit: str, label: str, **how: bool) -> Any:
        """One learning replay (`how`: `scout`, `pick`) on freshly ingested vaults, torn down after."""
        user = eval_user()
        try:
            with progress_bar(total=len(conversations), unit="conversation", desc=label) as bar:
                return run_learning(user=user, conversations=conversations, unit=unit, tick=bar.update, **how)
        finally:
            corpus.teardown(user)

    def _learning(self, data: Path, unit: str) -> dict[str, Any]:
        conversations = locomo.load(data)
        figures = self._learning_run(conversations, unit, "learning")
        scouted = self._learning_run(conversations, unit, "learning, exploring", scout=True)
        before, after = figures["before"], figures["after"]
        figures["exploration"] = {
            "on": {k: scouted[k] for k in ("after", "votes", "bridges", "mrr_change")},
            "cost": {m: round(after.get(m, 0.0) - scouted["after"].get(m, 0.0), 4) for m in ("recall@10", "mrr")},
        }
        self.stdout.write(
            f"learning: MRR {before.get('mrr')} → {after.get('mrr')} (change {figures['mrr_change']}), "
            f"recall@10 {before.get('recall@10')} → {after.get('recall@10')}; unshared MRR "
            f"{figures['unshared']['before'].get('mrr')} → {figures['unshared']['after'].get('mrr')}; exploration "
            f"costs {figures['exploration']['cost']}, bridges {scouted['bridges']}"
        )
        return figures

    def _pointing(self, conversations: list[locomo.Conversation], unit: str) -> dict[str, Any]:
        """Learning from the buttons alone, then with the asker also pointing to the answer, each run on freshly
        ingested vaults."""
        runs = {pick: self._learning_run(conversations, unit, label, pick=pick) for pick, label in LEARNING_PICK}
        for pick, figures in runs.items():
            self.stdout.write(
                f"{'pointing' if pick else 'buttons '}: MRR {figures['before'].get('mrr')} → "
                f"{figures['after'].get('mrr')} (change {figures['mrr_change']}); unshared change "
                f"{figures['unshared']['mrr_change']}; votes {figures['votes']}"
            )
        return {"buttons": runs[False], "pointing": runs[True]}

    def _significance(self, options: dict[str, Any]) -> None:
        if not options["chatter"].exists():
            raise CommandError(f"{options['chatter']} not found")
        messages = groups(options["data"], options["chatter"], SAMPLE_QUERIES)
        figures = calibrate_significance(messages)
        entry = figures.pop("entry")
        self.stdout.write(json.dumps(figures, indent=2))
        if options["write"]:
            write_classifier(figures["model"], entry)
            self.stdout.write(f"classifier for {figures['model']} written to {CLASSIFIERS}")

    def _fusion(self, options: dict[str, Any]) -> None:
        vaults = dev_vaults(options["corpora"], Path(settings.BASE_DIR) / "samples" / "vault", SAMPLE_QUERIES)
        missing = [str(v.notes) for v in vaults if not v.notes.is_dir()]
        if missing:
            raise CommandError(f"not found: {', '.join(missing)}")
        current = (
            (float(settings.SEARCH_BM25_K1), float(settings.SEARCH_BM25_B), float(settings.SEARCH_NOTE_MORE_CHUNKS)),
            current_fusion(),
        )
        user = eval_user()
        try:
            with progress_bar(total=len(vaults) * len(BM25_POINTS), unit="point", desc="fusion") as bar:
                measured = [measure(user, v, tick=bar.update) for v in vaults]
        finally:
            corpus.teardown(user)
        report = calibrate_fusion(measured, current)
        self.stdout.write(json.dumps(report, indent=2))
        if options["json_out"]:
            options["json_out"].parent.mkdir(parents=True, exist_ok=True)
            options["json_out"].write_text(json.dumps(report, indent=2))

    def _folds(self, conversations: list[locomo.Conversation], unit: str, k: int, pick: bool) -> dict[str, Any]:
        grid = PICK_GRID if pick else GRID
        user = eval_user()
        try:
            with progress_bar(total=len(conversations) * len(grid), unit="point", desc="learning folds") as bar:
                measured = [
                    conversation_measure(user=user, conv=c, unit=unit, grid=grid, tick=bar.update)
                    for c in conversations
                ]
        finally:
            corpus.teardown(user)
        if pick:
            report = folds_report(measured, k, PICK_GRID)
            report["votes"] = {m.sample_id: m.votes for m in measured}
            named: tuple[tuple[str, dict[str, Any]], ...] = (("pointing", report),)
        else:
            report = folds_report(measured, k)
            # the same replays read without the transfer through similar questions: the learning the product had
            report["desire_paths_only"] = folds_report(measured, k, DESIRE_PATHS)
            named = (("with similar questions", report), ("desire paths only", report["desire_paths_only"]))
        for label, figures in named:
            self.stdout.write(label)
            for fold in figures["folds"]:
                self.stdout.write(f"fold {fold['measured_on']}: rates {fold['rates']}\n  {_line(fold)}")
            self.stdout.write(f"pooled: {_line(figures['pooled'])}\ndefaults: {_line(figures['defaults'])}")
        return report

    def _replay(self, conversations: list[locomo.Conversation], unit: str, window: int) -> dict[str, Any]:
        user = eval_user()
        try:
            total = sum(len(c.questions) for c in conversations)
            with progress_bar(total=total, unit="question", desc="learning curve") as bar:
                runs = [conversation_replay(user=user, conv=c, unit=unit, tick=bar.update) for c in conversations]
        finally:
            corpus.teardown(user)
        report = replay_report(runs, [c.sample_id for c in conversations], window)
        self.stdout.write(f"replay MRR: learning off {report['mrr']['off']}, on {report['mrr']['on']}")
        return report

    def _learning_only(self, options: dict[str, Any]) -> None:
        conversations = locomo.load(options["data"])[: options["conversations"]]
        if options["pick"] and not options["folds"]:
            report = self._pointing(conversations, options["unit"])
        elif options["replay"]:
            report = self._replay(conversations, options["unit"], options["window"])
            if options["chart"]:
                title = f"LoCoMo {options['data'].stem}, {len(conversations)} conversations: MRR while answering"
                options["chart"].parent.mkdir(parents=True, exist_ok=True)
                options["chart"].write_text(curve_svg(report["curve"], title=title, window=options["window"]))
                self.stdout.write(f"chart written to {options['chart']}")
        else:
            report = self._folds(conversations, options["unit"], options["folds"], options["pick"])
        report = {"dataset": f"locomo:{options['data'].name}", "unit": options["unit"], **report}
        if options["replay"] and not options["pick"]:
            replay_record(report)
            self.stdout.write("kept for the staff learning page (/admin/learning/)")
        if options["json_out"]:
            options["json_out"].parent.mkdir(parents=True, exist_ok=True)
            options["json_out"].write_text(json.dumps(report, indent=2))
            self.stdout.write(f"figures written to {options['json_out']}")

    def _use_model(self, name: str) -> None:
        """This process embeds with `name`: the evaluation's vaults get its vectors (beside any other model's)."""
        if is_local(name):
            try:
                local_model(name)
            except ModelConfigurationError as error:
                raise CommandError(str(error)) from None
        settings.EMBEDDING_MODEL = name

    def _discovery(self, options: dict[str, Any]) -> None:
        if options["export_vault"] is not None:
            if not options["write_log"]:
                raise CommandError("--export-vault writes to --write-log")
            lines = footstep_log(options["export_vault"])
            options["write_log"].write_text("".join(json.dumps(line) + "\n" for line in lines))
            self.stdout.write(f"{len(lines)} footsteps written to {options['write_log']}")
            return
        if not options["notes"].is_dir() or (options["log"] and not options["log"].exists()):
            raise CommandError("--notes must be a folder and --log a .jsonl file")
        if options["log"]:
            try:
                steps, emerging = read_log(options["log"])
            except ValueError as exc:
                raise CommandError(str(exc)) from None
        user = eval_user()
        try:
            vault = corpus.ingest_folder(user, "discovery replay", options["notes"], graph=False).vault
            if not options["log"]:
                paths = list(Note.objects.filter(vault=vault).values_list("path", flat=True))
                lines = scripted_log(paths, days=options["days"], seed=options["seed"])
                if options["write_log"]:
                    options["write_log"].write_text("".join(json.dumps(line) + "\n" for line in lines))
                tmp = Path(tempfile.mkstemp(suffix=".jsonl")[1])
                tmp.write_text("".join(json.dumps(line) + "\n" for line in lines))
                steps, emerging = read_log(tmp)
                tmp.unlink()
            budgets = {tier: options[f"{tier}_budget"] for tier in DISCOVERY_TIERS}
            report = replay(vault=vault, steps=steps, emerging=emerging, budgets=budgets, warmup=options["warmup"])
        finally:
            corpus.teardown(user)
        report["budgets"], report["warmup"] = budgets, options["warmup"]
        self.stdout.write(_discovery_lines(report))
        if options["json_out"]:
            options["json_out"].parent.mkdir(parents=True, exist_ok=True)
            options["json_out"].write_text(json.dumps(report, indent=2))
            self.stdout.write(f"figures written to {options['json_out']}")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["dataset"] == "discovery":
            self._discovery(options)
            return
        if options["dataset"] == "calibrate":
            if not options["data"].exists():
                raise CommandError(f"{options['data']} not found")
            if options.get("model"):
                self._use_model(options["model"])
            if options["significance"]:
                self._significance(options)
                return
            if options["fusion"]:
                self._fusion(options)
                return
            graph = options["graph"]
            with progress_bar(unit="question", desc="collecting") as bar:
                questions = collect(options["data"], tick=bar.update, graph=graph)
            figures = calibrate(questions, FEATURES + GRAPH_FEATURES if graph else FEATURES)
            self.stdout.write(json.dumps(figures, indent=2))
            return
        if options.get("model"):
            self._use_model(options["model"])
        pipelines = options["pipelines"] or list(PIPELINES)
        chatter = options["chatter"] if options["chatter"] and options["chatter"].exists() else None
        if options["dataset"] == "locomo":
            if not options["data"].exists():
                raise CommandError(f"{options['data']} not found")
            if options["replay"] or (options["learn"] and (options["folds"] or options["pick"])):
                self._learning_only(options)
                return
            total = sum(len(c.questions) for c in locomo.load(options["data"]))
            with progress_bar(total=total, unit="question", desc="LoCoMo") as bar, _judge_refused():
                report = run_locomo(
                    data=options["data"],
                    unit=options["unit"],
                    pipelines=pipelines,
                    chatter=chatter,
                    tick=bar.update,
                    answers_out=options["answers"],
                    judge=options["judge"],
                )
            if options["learn"]:
                report["learning"] = self._learning(options["data"], options["unit"])
        else:
            if not options["notes"].is_dir() or not options["queries"].exists():
                raise CommandError("--notes must be a folder and --queries a .jsonl file")
            total = len(read_jsonl(options["queries"])) * len(pipelines)
            with progress_bar(total=total, unit="query", desc="vault") as bar:
                report = run_vault(
                    notes=options["notes"],
                    queries=options["queries"],
                    pipelines=pipelines,
                    chatter=chatter,
                    tick=bar.update,
                    answers_out=options["answers"],
                )
        report["embedding_model"] = current_model()
        self.stdout.write(render_table(report))
        if options["json_out"]:
            options["json_out"].parent.mkdir(parents=True, exist_ok=True)
            options["json_out"].write_text(json.dumps(report, indent=2))
            self.stdout.write(f"figures written to {options['json_out']}")


def _discovery_lines(report: dict[str, Any]) -> str:
    dropped = ", ".join(f"{n} {why}" for why, n in sorted(report["dropped"].items())) or "none"
    return "\n".join(
        [
            f"{report['days']} days: {report['candidates']} candidates ({report['candidates_per_day']} a day)",
            f"screening: {report['screening_calls']} calls, {report['screened']} screened, dropped {dropped} "
            f"(drop rate {report['drop_rate']})",
            f"formation: {report['formation_calls']} calls, {report['formed']} concepts formed",
            f"insights: {report['collision_calls']} collision verdict calls, {report['card_calls']} card narrative "
            f"calls, {report['cards_shown']} cards shown on the last day (none accepted by the policy)",
            f"accepted: {report['accepted']} of {report['emerging']} emerging topics; {report['calls']} calls, "
            f"{report['calls_per_accepted']} per accepted suggestion",
        ]
    )


def _line(figures: dict[str, Any]) -> str:
    parts = []
    for part in ("all", "unshared"):
        f = figures[part]
        parts.append(
            f"{part} ({f['questions']}): MRR {f['mrr']['before']} → {f['mrr']['after']} {f['mrr']['change']}, "
            f"recall@10 {f['recall@10']['before']} → {f['recall@10']['after']}"
        )
    return "; ".join(parts)


def render_table(report: dict[str, Any]) -> str:
    lines = [f"{report['dataset']}  unit={report.get('unit', 'notes')}  questions={report['questions']}"]
    keys = ["recall@5", "recall@10", "hit@10", "mrr", "session_recall@10", "hit@5"]
    first = next(iter(report["pipelines"].values()))
    shown = [k for k in keys if k in first["overall"]]
    header = f"{'pipeline':10}" + "".join(f"{k:>18}" for k in shown) + f"{'p50 ms':>9}{'p95 ms':>9}"
    extra = "" if "injected" not in first else f"{'items':>7}{'turns':>7}{'tokens':>8}{'noise':>7}"
    lines += [header + extra + f"{'silent chatter':>16}"]
    for name, figures in report["pipelines"].items():
        row = f"{name:10}" + "".join(f"{figures['overall'].get(k, 0):>18.3f}" for k in shown)
        row += f"{figures['latency_ms']['p50']:>9.1f}{figures['latency_ms']['p95']:>9.1f}"
        if "injected" in figures:
            inj = figures["injected"]
            row += (
                f"{inj['items_per_question']:>7.1f}{inj['source_turns_per_question']:>7.1f}"
                f"{inj['tokens_per_question']:>8.0f}{inj['noise_items_per_question']:>7.1f}"
            )
        silence = figures["silence"].get("chatter")
        row += f"{'n/a' if silence is None else f'{silence:.2f}':>16}"
        lines.append(row)
    for name, figures in report["pipelines"].items():
        cats = figures.get("by_category") or figures.get("by_kind") or {}
        parts = [
            f"{c}: " + " ".join(f"{k}={v:.3f}" for k, v in m.items() if isinstance(v, float) and k in keys)
            for c, m in cats.items()
            if isinstance(m, dict)
        ]
        lines.append(f"  {name} by {'category' if 'by_category' in figures else 'kind'}: " + " | ".join(parts))
    answering = {name: figures["answers"] for name, figures in report["pipelines"].items() if "answers" in figures}
    lines += [_answers_line(name, answers) for name, answers in answering.items()]
    return "\n".join(lines)


def _answers_line(name: str, answers: dict[str, Any]) -> str:
    if "unanswerable" in answers:
        return _vault_answers_line(name, answers)
    by_category = " ".join(f"{c}={f:.3f}" for c, f in answers["f1_by_category"].items())
    abstained = answers["abstained"]
    by = answers["answered_by"]
    line = (
        f"  {name} {by if by == 'offline' else by + ' (chat slot)'} answer: F1 {answers['f1']:.3f} "
        f"(by category {by_category}); abstained on category 5 {abstained['category5']:.1%}, on answerable "
        f"questions {abstained['answerable']:.1%}"
    )
    if answers["model_failures"]:
        line += f"; the model failed on {answers['model_failures']} (the offline answer stood in)"
    if "judge" in answers:
        judge = answers["judge"]
        by_category = " ".join(f"{c}={f:.3f}" for c, f in judge["correct_by_category"].items())
        line += f"\n  {name} judged correct: {judge['correct']:.3f} (by category {by_category})"
        line += f", {judge['unjudged']} not graded" if judge["unjudged"] else ""
    return line


def _vault_answers_line(name: str, answers: dict[str, Any]) -> str:
    answerable, unanswerable, by = answers["answerable"], answers["unanswerable"], answers["answered_by"]
    line = (
        f"  {name} {by if by == 'offline' else by + ' (chat slot)'} answer: first citation in a note that answers "
        f"{answerable['first_citation_relevant']:.1%}, a bold lead {answerable['led']:.1%}, abstained "
        f"{answerable['abstained']:.1%}; unanswerable: abstained {unanswerable['abstained']:.1%}, a bold lead "
        f"{unanswerable['led']:.1%}"
    )
    if answers["model_failures"]:
        line += f"; the model failed on {answers['model_failures']} (the offline answer stood in)"
    return line


@contextmanager
def _judge_refused() -> Iterator[None]:
    try:
        yield
    except JudgeUnavailable as exc:
        raise CommandError(str(exc)) from exc
