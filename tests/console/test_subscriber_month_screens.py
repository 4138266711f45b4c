"""Subscribers in the console, by clicks: each row's actions in its state (unsubscribe,
resend the confirmation, reactivate, components), adding every kind page-wide, for
components or for one incident, importing email subscribers from CSV, and the role checks."""

import re

from tests.sent_mail import sent_mail


def _base(world) -> str:
    return f"/manage/pages/{world.page_id}/subscribers"


def _api(world, suffix: str = "") -> str:
    return f"/v1/pages/{world.page_id}/subscribers{suffix}"


def _subscribe(world, fields: dict) -> dict:
    answer = world.api.post(_api(world), {"subscriber": fields})
    assert answer.status == 201, answer.text
    return answer.json


def _component(world, name: str) -> str:
    answer = world.api.post(f"/v1/pages/{world.page_id}/components", {"component": {"name": name}})
    return answer.json["id"]


def _rows(text: str) -> list[str]:
    return re.findall(r"<tr>\s*(.*?)</tr>", text, re.S)


def _row_of(text: str, address: str) -> str:
    (row,) = [row for row in _rows(text) if address in row]
    return row


def test_each_row_shows_its_state_and_that_states_actions(console, make_user, world):
    active = _subscribe(
        world, {"email": "active@example.com", "skip_confirmation_notification": True}
    )
    _subscribe(world, {"email": "waiting@example.com"})
    held = _subscribe(world, {"email": "held@example.com", "skip_confirmation_notification": True})
    gone = _subscribe(world, {"email": "gone@example.com", "skip_confirmation_notification": True})
    console.sign_in(make_user())
    base = _base(world)
    console.get(base)
    assert console.post(f"{base}/{held['id']}/quarantine", {}).status == 303
    assert console.post(f"{base}/{gone['id']}/unsubscribe", {"confirm": "yes"}).status == 303

    listed = console.get(f"{base}?state=all").text
    row = _row_of(listed, "active@example.com")
    assert "Active" in row and "Quarantine" in row and "Unsubscribe" in row
    assert f"/subscribers/{active['id']}/unsubscribe" in row
    row = _row_of(listed, "waiting@example.com")
    assert "Unconfirmed" in row and "Resend confirmation" in row and "Reactivate" not in row
    row = _row_of(listed, "held@example.com")
    assert "Quarantined" in row and "Reactivate" in row and "Resend" not in row
    assert "gone@example.com" not in listed

    unsubscribed = console.get(f"{base}?state=unsubscribed").text
    row = _row_of(unsubscribed, "gone@example.com")
    assert "Unsubscribed" in row and "<button" not in row


def test_unsubscribe_is_the_apis_delete(console, make_user, world):
    subscriber = _subscribe(world, {"email": "leaving@example.com"})
    console.sign_in(make_user())
    console.get(_base(world))
    answer = console.post(f"{_base(world)}/{subscriber['id']}/unsubscribe", {"confirm": "yes"})
    assert answer.status == 303
    assert "Unsubscribed+leaving%40example.com" in answer.headers["location"]
    assert world.api.get(_api(world, f"/{subscriber['id']}")).status == 404
    unsubscribed = world.api.get(_api(world, "/unsubscribed")).json
    assert [s["email"] for s in unsubscribed] == ["leaving@example.com"]
    shown = console.get(answer.headers["location"]).text
    assert '<p class="notice" role="status">Unsubscribed leaving@example.com</p>' in shown


def test_unsubscribe_asks_first_naming_the_address_and_a_single_post_changes_nothing(
    console, make_user, world
):
    subscriber = _subscribe(world, {"email": "jane@example.com"})
    console.sign_in(make_user())
    console.get(_base(world))
    path = f"{_base(world)}/{subscriber['id']}/unsubscribe"
    name = world.api.get(f"/v1/pages/{world.page_id}").json["name"]
    for asked in (console.post(path, {}), console.get(path)):
        assert asked.status == 200
        question = f"Unsubscribe jane@example.com from {name}&#39;s notifications?"
        assert question in asked.text
        assert f'action="{path}"' in asked.text and 'name="confirm" value="yes"' in asked.text
    assert world.api.get(_api(world, f"/{subscriber['id']}")).status == 200  # still there
    assert console.post(path, {"confirm": "yes"}).status == 303
    assert world.api.get(_api(world, f"/{subscriber['id']}")).status == 404


def test_the_confirmation_is_sent_again_only_to_an_unconfirmed_subscriber(
    console, make_user, world
):
    waiting = _subscribe(world, {"email": "again@example.com"})
    active = _subscribe(
        world, {"email": "done@example.com", "skip_confirmation_notification": True}
    )
    console.sign_in(make_user())
    console.get(_base(world))
    before = len(sent_mail())
    assert console.post(f"{_base(world)}/{waiting['id']}/resend_confirmation", {}).status == 303
    mails = sent_mail()
    assert len(mails) == before + 1 and mails[-1].to == ["again@example.com"]
    refused = console.post(f"{_base(world)}/{active['id']}/resend_confirmation", {})
    assert refused.status == 422 and "is not waiting for confirmation" in refused.text
    assert len(sent_mail()) == before + 1


def test_a_quarantined_subscriber_is_reactivated_from_its_row(console, make_user, world):
    subscriber = _subscribe(
        world, {"email": "bounced@example.com", "skip_confirmation_notification": True}
    )
    console.sign_in(make_user())
    console.get(_base(world))
    console.post(f"{_base(world)}/{subscriber['id']}/quarantine", {})
    row = _row_of(console.get(f"{_base(world)}?state=quarantined").text, "bounced@example.com")
    assert f"/subscribers/{subscriber['id']}/reactivate" in row
    assert console.post(f"{_base(world)}/{subscriber['id']}/reactivate", {}).status == 303
    answer = world.api.get(_api(world, f"/{subscriber['id']}")).json
    assert (answer["state"], answer["quarantined_at"]) == ("active", None)


def test_components_are_chosen_and_all_components_makes_a_page_subscriber_again(
    console, make_user, world
):
    api, web = _component(world, "API"), _component(world, "Web")
    subscriber = _subscribe(world, {"email": "picky@example.com"})
    console.sign_in(make_user())
    one = f"{_base(world)}/{subscriber['id']}"
    shown = console.get(one).text
    assert "<legend>Components</legend>" in shown and "The whole page" in shown
    answer = console.post(
        f"{one}/components",
        [("scope", "components"), ("subscriber[component_ids][]", api)],
    )
    assert answer.status == 303, answer.text
    assert world.api.get(_api(world, f"/{subscriber['id']}")).json["components"] == [api]
    shown = console.get(one).text
    assert f'value="{api}" checked' in shown and f'value="{web}" checked' not in shown
    assert "Notified of</dt><dd>API</dd>" in shown

    # "All components" leaves none chosen: the whole page, as its manage link saves it.
    answer = console.post(
        f"{one}/components", [("scope", "page"), ("subscriber[component_ids][]", api)]
    )
    assert answer.status == 303
    assert world.api.get(_api(world, f"/{subscriber['id']}")).json["components"] == []
    nothing = console.post(f"{one}/components", [("scope", "components")])
    assert nothing.status == 422


def test_email_sms_and_webhook_subscribers_are_added_for_the_page_or_chosen_components(
    console, make_user, world
):
    api = _component(world, "API")
    console.sign_in(make_user())
    base = _base(world)
    form = console.get(f"{base}/new").text
    for name in ("subscriber[email]", "subscriber[phone_country]", "subscriber[phone_number]"):
        assert f'name="{name}"' in form
    assert 'name="subscriber[endpoint]"' in form and "<legend>Notified of</legend>" in form
    added = [
        [("subscriber[email]", "mail@example.com"), ("scope", "page")],
        [
            ("subscriber[phone_country]", "US"),
            ("subscriber[phone_number]", "(415) 555-0132"),
            ("scope", "components"),
            ("subscriber[component_ids][]", api),
        ],
        [
            ("subscriber[endpoint]", "http://127.0.0.1:9/hook"),
            ("subscriber[email]", "hook-owner@example.com"),
            ("scope", "page"),
        ],
    ]
    for fields in added:
        answer = console.post(base, fields)
        assert answer.status == 303, answer.text
    by_mode = {s["mode"]: s for s in world.api.get(_api(world, "?state=all")).json}
    assert by_mode["email"]["state"] == "unconfirmed" and by_mode["email"]["components"] == []
    assert by_mode["sms"]["display_phone_number"] == "+14155550132"
    assert by_mode["sms"]["components"] == [api]
    assert by_mode["webhook"]["endpoint"] == "http://127.0.0.1:9/hook"
    listed = console.get(f"{base}?state=all").text
    assert "+14155550132" in _row_of(listed, "+14155550132") and "API" in _row_of(
        listed, "+14155550132"
    )

    bad_number = [("subscriber[phone_country]", "US"), ("subscriber[phone_number]", "12")]
    answer = console.post(base, bad_number)
    assert answer.status == 422 and "is not a valid number" in answer.text


def test_a_webhook_passes_the_apis_address_filter(console, make_user, world, monkeypatch):
    monkeypatch.delenv("ALLOW_PRIVATE_TARGETS", raising=False)
    console.sign_in(make_user())
    console.get(f"{_base(world)}/new")
    answer = console.post(
        _base(world),
        {"subscriber[endpoint]": "http://127.0.0.1:9/hook", "subscriber[email]": "a@example.com"},
    )
    assert answer.status == 422 and "must resolve to a public address" in answer.text
    assert world.api.get(_api(world, "?state=all")).json == []


def test_an_incident_subscriber_follows_the_incident_chosen(console, make_user, world):
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents",
        {"incident": {"name": "Login <failures>", "status": "investigating"}},
    ).json
    console.sign_in(make_user())
    base = _base(world)
    form = console.get(f"{base}/new").text
    assert f'<option value="{incident["id"]}">Login &lt;failures&gt; (investigating)' in form
    answer = console.post(
        base,
        {
            "subscriber[email]": "follower@example.com",
            "subscriber[skip_confirmation_notification]": "true",
            "scope": "incident",
            "incident_id": incident["id"],
        },
    )
    assert answer.status == 303, answer.text
    followers = world.api.get(
        f"/v1/pages/{world.page_id}/incidents/{incident['id']}/subscribers"
    ).json
    assert [s["email"] for s in followers] == ["follower@example.com"]
    row = _row_of(console.get(f"{base}?state=all").text, "follower@example.com")
    assert "One incident" in row and "Quarantine" not in row
    shown = console.get(f"{base}/{followers[0]['id']}").text
    assert "One incident: Login &lt;failures&gt;" in shown and "Save the components" not in shown

    unknown = console.post(
        base, {"subscriber[email]": "x@example.com", "scope": "incident", "incident_id": "nope"}
    )
    assert unknown.status == 404


def _csv(addresses: list[str]) -> str:
    return "email,components\n" + "".join(f"{address}\n" for address in addresses)


def test_an_import_of_50_rows_adds_the_47_good_ones_once(console, make_user, world):
    _subscribe(world, {"email": "Known@Example.com", "skip_confirmation_notification": True})
    good = [f"reader{number:02}@example.com" for number in range(47)]
    rows = good[:10] + ["not-an-email"] + good[10:20] + ["READER03@example.com"]
    rows += good[20:] + ["known@example.com"]
    assert len(rows) == 50
    upload = _csv(rows).encode()
    console.sign_in(make_user())
    base = _base(world)
    form = console.get(f"{base}/import").text
    assert 'enctype="multipart/form-data"' in form and 'name="import[file]"' in form

    preview = console.post_files(
        f"{base}/import",
        {"import[skip_confirmation_notification]": "true"},
        {"import[file]": ("subscribers.csv", upload, "text/csv")},
    )
    assert preview.status == 200, preview.text
    assert "47 to add" in preview.text and "3 not added" in preview.text
    refused = re.findall(
        r'<tr class="refused"><td>Row (\d+)</td><td class="name">([^<]*)</td><td>([^<]*)</td>',
        preview.text,
    )
    assert refused == [
        ("12", "not-an-email", "is not an email address"),
        ("23", "READER03@example.com", "is a duplicate of row 5"),
        ("51", "known@example.com", "is already subscribed"),
    ]
    assert world.api.get(_api(world, "?state=all")).json[0]["email"] == "Known@Example.com"

    answer = console.post(
        f"{base}/import/confirm",
        {"import[csv]": _csv(rows), "import[skip_confirmation_notification]": "true"},
    )
    assert answer.status == 303
    assert "Imported+47+subscribers" in answer.headers["location"]
    counted = world.api.get(_api(world, "/count?state=all")).json
    assert counted["email"] == 48
    assert world.api.get(_api(world, "/count?state=active")).json["email"] == 48

    again = console.post_files(
        f"{base}/import", {}, {"import[file]": ("subscribers.csv", upload, "text/csv")}
    )
    assert "0 to add" in again.text and "50 not added" in again.text
    assert "/import/confirm" not in again.text
    confirmed = console.post(f"{base}/import/confirm", {"import[csv]": _csv(rows)})
    assert "Imported+0+subscribers" in confirmed.headers["location"]
    assert world.api.get(_api(world, "/count?state=all")).json["email"] == 48


def test_a_pasted_import_follows_the_confirmation_choice_and_its_components_column(
    console, make_user, world
):
    api, web = _component(world, "API"), _component(world, "Web")
    console.sign_in(make_user())
    base = _base(world)
    console.get(f"{base}/import")
    text = f"ann@example.com,API; web\nbob@example.com,{api} {web}\ncid@example.com,Mobile\n"
    preview = console.post(f"{base}/import", {"import[csv]": text})
    assert "2 to add" in preview.text
    assert "names no component of this page: Mobile" in preview.text
    before = len(sent_mail())
    console.post(f"{base}/import/confirm", {"import[csv]": text})
    listed = world.api.get(_api(world, "?state=unconfirmed")).json
    assert {s["email"]: s["components"] for s in listed} == {
        "ann@example.com": [api, web],
        "bob@example.com": [api, web],
    }
    assert len(sent_mail()) == before + 2  # each asked to confirm, as the API's create does


def test_an_import_does_not_add_back_an_address_that_unsubscribed(console, make_user, world):
    api = _component(world, "API")
    incident = world.api.post(
        f"/v1/pages/{world.page_id}/incidents", {"incident": {"name": "Down"}}
    ).json
    incident_subscribers = f"/v1/pages/{world.page_id}/incidents/{incident['id']}/subscribers"
    left = [
        _subscribe(world, {"email": "leaving@example.com", "skip_confirmation_notification": True}),
        _subscribe(world, {"email": "parts@example.com", "component_ids": [api]}),
        world.api.post(incident_subscribers, {"subscriber": {"email": "once@example.com"}}).json,
        _subscribe(world, {"email": "back@example.com"}),
    ]
    for subscriber in left:
        assert world.api.delete(_api(world, f"/{subscriber['id']}")).status == 200
    _subscribe(world, {"email": "back@example.com"})  # subscribed again, by themselves
    console.sign_in(make_user())
    base = _base(world)
    console.get(f"{base}/import")
    text = "Leaving@Example.com\nparts@example.com,API\nonce@example.com\nback@example.com\nnew@example.com\n"
    preview = console.post(f"{base}/import", {"import[csv]": text}).text
    assert "2 to add" in preview
    for address in ("Leaving@Example.com", "parts@example.com"):
        assert re.search(rf"{re.escape(address)}.*?unsubscribed earlier", preview, re.S), address
    assert re.search(r"back@example.com.*?is already subscribed", preview, re.S)
    console.post(f"{base}/import/confirm", {"import[csv]": text})
    listed = world.api.get(_api(world, "?state=all&limit=100")).json
    assert sorted(s["email"] for s in listed) == [
        "back@example.com",
        "new@example.com",
        "once@example.com",
    ]
    unsubscribed = world.api.get(_api(world, "/unsubscribed")).json
    assert sorted(s["email"] for s in unsubscribed) == [
        "back@example.com",
        "leaving@example.com",
        "once@example.com",
        "parts@example.com",
    ]


def test_an_import_without_rows_is_refused(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"{_base(world)}/import")
    answer = console.post(f"{_base(world)}/import", {"import[csv]": "  "})
    assert answer.status == 422 and "paste the CSV or choose a file" in answer.text


def test_the_list_reads_one_screen_of_rows_whatever_the_page_holds(
    console, make_user, world, dynamodb_calls
):
    console.sign_in(make_user())
    base = _base(world)
    console.get(f"{base}/import")
    addresses = [f"many{number:03}@example.com" for number in range(60)]
    console.post(
        f"{base}/import/confirm",
        {"import[csv]": _csv(addresses), "import[skip_confirmation_notification]": "true"},
    )
    before = dynamodb_calls.items_read()
    first = console.get(base).text
    read = dynamodb_calls.items_read() - before
    assert "many049@example.com" in first and "many050@example.com" not in first
    assert "page=1" in first  # the next screen's link
    assert read < 120  # the 51 entries asked for and their subscribers, not every one
    second = console.get(f"{base}?state=active&page=1").text
    assert "many050@example.com" in second and "many059@example.com" in second


def test_a_user_without_page_configuration_sees_no_control_and_is_refused_every_change(
    console, make_user, world
):
    subscriber = _subscribe(world, {"email": "kept@example.com"})
    console.sign_in(make_user({"incident_manager": True}))
    listed = console.get(f"{_base(world)}?state=all").text
    assert "kept@example.com" in listed
    listed = listed.replace('method="post" action="/manage/sign-out"', "")
    for control in ("/unsubscribe", "/resend_confirmation", "/import", "/new", 'method="post"'):
        assert control not in listed
    assert "Save the components" not in console.get(f"{_base(world)}/{subscriber['id']}").text
    assert console.get(f"{_base(world)}/new").status == 403
    assert console.get(f"{_base(world)}/import").status == 403
    for suffix in ("", "/import", "/import/confirm", "/{id}/unsubscribe", "/{id}/quarantine") + (
        "/{id}/resend_confirmation",
        "/{id}/components",
        "/{id}/reactivate",
    ):
        forged = console.post(
            _base(world) + suffix.format(id=subscriber["id"]),
            {"import[csv]": "eve@example.com", "subscriber[email]": "eve@example.com"},
        )
        assert forged.status == 403, suffix
    listed = world.api.get(_api(world, "?state=all")).json
    assert [(s["email"], s["state"]) for s in listed] == [("kept@example.com", "unconfirmed")]


def test_a_refused_subscriber_is_shown_again_in_its_own_form_as_typed(console, make_user, world):
    console.sign_in(make_user())
    console.get(f"{_base(world)}/new")
    typed = {"form": "email", "subscriber[email]": "jane@@example", "scope": "page"}
    refused = console.post(_base(world), typed)
    assert refused.status == 422 and "<h1>Add a subscriber</h1>" in refused.text
    email_form = refused.text.split('id="add-email"')[1].split("</section>")[0]
    assert 'value="jane@@example"' in email_form
    assert 'aria-describedby="email-email-problem"' in email_form
    assert re.search(r'id="email-email-problem">The email address [^<]+</p>', email_form)
    webhook_form = refused.text.split('id="add-webhook"')[1].split("</section>")[0]
    assert "jane@@example" not in webhook_form and "problem" not in webhook_form
    assert world.api.get(_api(world, "")).json == []  # nothing added
