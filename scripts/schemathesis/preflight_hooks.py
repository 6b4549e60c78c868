"""Schemathesis hooks for Preflight's headless API (scripts/schemathesis.sh).

- Path ids: besides the random ids schemathesis makes up (404s), the ids of real chats
  and of their user messages, so that the routes behind them are exercised too.
- The check `refused_request_changes_nothing` (DESIGN §9: "a rejected request changes
  nothing"): around every answer of 4xx, the chat list and the chat the path names are
  the same before and after. A chat whose turn runs (its state moves on by itself) is
  not compared.
"""

import json
import os
import urllib.error
import urllib.parse
import urllib.request

import schemathesis
from hypothesis import strategies as st

BASE = os.environ["PREFLIGHT_API"]
TOKEN = os.environ["PREFLIGHT_TOKEN"]
BUSY_PHASES = {"planning", "executing"}
SNAPSHOTS = {}


def call(method, path, body=None):
    """One request with the token; (status, JSON body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        BASE + path,
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def chat_path(chat_id):
    return "/v1/chats/" + urllib.parse.quote(chat_id, safe="")


def seed_chats():
    """A chat whose plan waits for approval and one that answered without planning."""
    planning = call("POST", "/v1/chats", {"title": "Planning"})[1]["id"]
    call("POST", chat_path(planning) + "/messages", {"content": "Make a CSV of sample rows"})
    direct = call("POST", "/v1/chats", {"title": "Direct", "plan_mode": False})[1]["id"]
    call("POST", chat_path(direct) + "/messages", {"content": "Say hello"})


seed_chats()


def chat_ids():
    return [chat["id"] for chat in call("GET", "/v1/chats?limit=200")[1]["data"]]


@schemathesis.hook
def flatmap_path_parameters(context, path_parameters):
    if not path_parameters or "id" not in path_parameters:
        return st.just(path_parameters)
    choices = [path_parameters]
    for chat_id in chat_ids()[:4]:
        choices.append(dict(path_parameters, id=chat_id))
        if "mid" in path_parameters:
            messages = call("GET", chat_path(chat_id))[1].get("messages", [])
            for message in messages:
                if message["role"] == "user":
                    choices.append(dict(path_parameters, id=chat_id, mid=message["id"]))
    return st.sampled_from(choices)


def snapshot(case):
    """The chat list's ids and the view of the chat the path names (None if no such chat,
    "busy" while its turn runs)."""
    ids = chat_ids()
    chat_id = (case.path_parameters or {}).get("id")
    if not isinstance(chat_id, str) or chat_id not in ids:
        return ids, None
    view = call("GET", chat_path(chat_id))[1]
    if view["state"]["phase"] in BUSY_PHASES:
        return ids, "busy"
    return ids, view


@schemathesis.hook
def before_call(context, case, kwargs):
    SNAPSHOTS[id(case)] = snapshot(case)


@schemathesis.check
def refused_request_changes_nothing(ctx, response, case):
    before = SNAPSHOTS.pop(id(case), None)
    if response.status_code < 400 or before is None or before[1] == "busy":
        return None
    after = snapshot(case)
    if after[0] != before[0]:
        raise AssertionError(f"a refused request changed the chat list: {before[0]} -> {after[0]}")
    if after[1] != before[1]:
        raise AssertionError(f"a refused request changed the chat: {before[1]} -> {after[1]}")
    return None
