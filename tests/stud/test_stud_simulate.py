"""``manage.py stud_simulate`` end to end: the summary, the same seed giving the same hands, --jsonl."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from casino.stud.engine import hand_record, replay


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("stud_simulate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def without_timing(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith("Hands per second"))


@pytest.mark.parametrize("game", ["five_stud", "soko", "seven_stud"])
def test_the_summary_reports_the_hands_it_played(game):
    out, _ = run("--game", game, "--players", "4", "--hands", "25", "--seed", "11")
    assert f"{game} 5-10 (fixed limit), 4 players, seed 11" in out
    assert "Hands played:            25" in out
    assert "Showdowns:" in out and "Average pot:" in out and "Rake:" in out
    assert "Hands at showdown by category" in out
    assert "Hands per second:" in out


def test_the_same_seed_gives_the_same_hands_and_another_seed_other_hands():
    args = ("--game", "seven_stud", "--players", "6", "--hands", "15", "--strategy", "random_legal")
    first, _ = run(*args, "--seed", "5", "--jsonl")
    again, _ = run(*args, "--seed", "5", "--jsonl")
    other, _ = run(*args, "--seed", "6", "--jsonl")
    assert first == again
    assert first != other
    summary, _ = run(*args, "--seed", "5")
    assert without_timing(summary) == without_timing(run(*args, "--seed", "5")[0])


def test_without_a_seed_every_run_deals_fresh_hands():
    args = ("--game", "five_stud", "--players", "3", "--hands", "3", "--jsonl")
    first = [json.loads(line)["server_seed"] for line in run(*args)[0].splitlines()]
    second = [json.loads(line)["server_seed"] for line in run(*args)[0].splitlines()]
    assert len(set(first + second)) == 6


def test_jsonl_lines_are_hand_records_that_replay_to_themselves():
    out, err = run(
        "--game",
        "seven_stud",
        "--limit",
        "spread",
        "--table",
        "1-5",
        "--players",
        "8",
        "--hands",
        "12",
        "--seed",
        "9",
        "--jsonl",
    )
    lines = out.splitlines()
    assert len(lines) == 12
    for line in lines:
        record = json.loads(line)
        assert record["game"] == "seven_stud" and record["limit"]["type"] == "spread"
        assert hand_record(replay(record)) == record
    assert "Hands played:            12" in err  # the summary goes to stderr beside --jsonl


def test_the_summary_counts_agree_with_the_records():
    args = (
        "--game",
        "soko",
        "--table",
        "2-4",
        "--players",
        "5",
        "--hands",
        "30",
        "--seed",
        "2",
        "--strategy",
        "tight,aggressive,random_legal",
    )
    out, err = run(*args, "--jsonl")
    records = [json.loads(line) for line in out.splitlines()]
    showdowns = sum(1 for r in records if len(r["showdown"]) >= 2)
    assert f"Showdowns:               {showdowns:,} ({showdowns / 30:.1%})" in err
    rake = sum(int(r["rake"].replace(".", "")) for r in records)
    assert f"Rake:                    {rake // 100}.{rake % 100:02d}" in err
    categories = {}
    for r in records:
        if len(r["showdown"]) >= 2:
            for entry in r["showdown"]:
                categories[entry["category"]] = categories.get(entry["category"], 0) + 1
    for key, count in categories.items():
        assert f"  {key:<16} {count:>10,}" in err
    assert "1:tight, 2:aggressive, 3:random_legal, 4:tight, 5:aggressive" in err


@pytest.mark.parametrize(
    "args,message",
    [
        (("--game", "holdem", "--players", "2", "--hands", "1"), "unknown game 'holdem'"),
        (("--game", "soko", "--players", "1", "--hands", "1"), "players must be 2..8"),
        (("--game", "soko", "--players", "9", "--hands", "1"), "players must be 2..8"),
        (("--game", "soko", "--players", "2", "--hands", "0"), "hands must be a positive"),
        (("--game", "soko", "--limit", "spread", "--players", "2", "--hands", "1"), "No standard table '1-3'"),
        (
            ("--game", "seven_stud", "--limit", "spread", "--table", "5-10", "--players", "2", "--hands", "1"),
            "is fixed limit, not spread",
        ),
        (("--game", "five_stud", "--table", "7-14", "--players", "2", "--hands", "1"), "No standard table '7-14'"),
        (("--game", "five_stud", "--players", "2", "--hands", "1", "--strategy", "maniac"), "unknown strategy"),
        (("--game", "five_stud", "--players", "2", "--hands", "1", "--seed", "-1"), "seed must be"),
    ],
)
def test_bad_arguments_are_a_clear_command_error(args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_the_records_verify_with_the_documented_standalone_check():
    """docs/stud-hand-record.md's verification code, run as written, on records with and without a reshuffle."""
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "stud-hand-record.md").read_text()
    code = doc.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict = {}
    exec(compile(code, "stud-hand-record.md", "exec"), namespace)  # noqa: S102 - our own documentation
    kinds = set()
    for args in (
        ("--game", "seven_stud", "--table", "1-2", "--players", "8", "--strategy", "calling_station"),
        ("--game", "seven_stud", "--players", "7", "--strategy", "mixed"),
        ("--game", "soko", "--players", "5"),
    ):
        out, _ = run(*args, "--hands", "6", "--seed", "21", "--jsonl")
        for line in out.splitlines():
            record = json.loads(line)
            assert namespace["verify"](record)
            kinds |= {e["type"] for e in record["events"]}
            tampered = json.loads(line)
            deal = next(e for e in tampered["events"] if e["type"] == "deal")
            deal["card"] = "2c" if deal["card"] != "2c" else "3c"
            with pytest.raises(AssertionError):
                namespace["verify"](tampered)
    assert {"reshuffle", "community"} <= kinds
