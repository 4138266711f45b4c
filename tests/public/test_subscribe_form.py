"""The subscribe form and the manage page read as a reader expects (issue 32, item 11): the
SMS country is chosen from a list, components come in the page's order, the ways to
subscribe are a sentence, and the manage page says how notifications travel."""

import re

from chalicelib.domain import subscribers
from chalicelib.domain.sms_countries import COUNTRIES
from tests.public.conftest import make_component, make_group, publish, update_page
from tests.public.test_subscription_flow import post_form


def choice_labels(text: str) -> list[str]:
    fieldset = re.search(r'<fieldset id="component-choice">.*</fieldset>', text, re.DOTALL)
    assert fieldset, text
    return re.findall(r'<input type="checkbox"[^>]*>([^<]+)</label>', fieldset.group(0))


def test_the_sms_country_is_chosen_from_a_list_of_the_countries_served(world, visitor):
    publish(world)
    form = visitor.get("/subscribe?via=sms").text
    assert 'placeholder="US"' not in form
    select = re.search(
        r'<select name="subscriber\[phone_country\]" required[^>]*>(.*?)</select>', form, re.DOTALL
    )
    assert select, form
    options = re.findall(r'<option value="([A-Z]*)"[^>]*>([^<]+)</option>', select.group(1))
    assert options[0] == ("", "Choose a country")  # nothing chosen for the reader
    assert {code for code, _ in options[1:]} == set(COUNTRIES)
    names = [name for _, name in options[1:]]
    assert names == sorted(names)
    assert ("US", "United States (+1)") in options


def test_a_form_sent_back_keeps_the_country_chosen(world, visitor):
    publish(world)
    answer = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=sms",
        [("subscriber[phone_country]", "GB"), ("subscriber[phone_number]", "12")],
    )
    assert answer.status == 422
    assert '<option value="GB" selected>United Kingdom (+44)</option>' in answer.text
    assert "subscriber[phone_number]" in answer.text


def test_a_country_from_the_list_subscribes_by_text_message(world, visitor):
    publish(world)
    sent = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=sms",
        [("subscriber[phone_country]", "GB"), ("subscriber[phone_number]", "7911123456")],
    )
    assert sent.status == 200, sent.text
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed")
    assert (subscriber.kind, subscriber.phone_country) == ("sms", "GB")


def test_components_are_listed_in_the_order_the_page_shows_them(world, visitor):
    api = make_component(world, "API")
    database = make_component(world, "Database")
    make_component(world, "Website")
    make_group(world, "Core", [api["id"], database["id"]])  # made last, shown where it is
    publish(world)
    home = visitor.get("").text
    shown = re.findall(r'<span class="name">([^<]+)</span>', home)
    assert shown == ["Website", "Core", "API", "Database"]
    form = visitor.get("/subscribe").text
    assert choice_labels(form) == ["Website", "The whole group", "API", "Database"]
    assert re.findall(
        r'<fieldset class="group-choice" data-group-choice>\n<legend>([^<]+)', form
    ) == ["Core"]


def test_a_whole_group_chosen_subscribes_to_each_of_its_members(world, visitor):
    """Without the form's script, which checks the members, the group's own choice is
    read as all of them (issue 50, item 15)."""
    api = make_component(world, "API")
    database = make_component(world, "Database")
    website = make_component(world, "Website")
    core = make_group(world, "Core", [api["id"], database["id"]])
    publish(world)
    sent = post_form(
        visitor,
        f"/s/{world.page_id}/subscribe?via=email",
        [
            ("subscriber[email]", "reader@example.com"),
            ("subscriber[component_ids][]", website["id"]),
            ("whole_groups[]", core["id"]),
        ],
    )
    assert sent.status == 200, sent.text
    (subscriber,) = subscribers.listed(world.page_id, state="unconfirmed")
    assert list(subscriber.component_ids) == [website["id"], api["id"], database["id"]]

    # The manage page shows the group chosen whole, and reads a group chosen there alike.
    manage = subscribers.link_path(subscriber, subscribers.MANAGE)
    assert f'value="{core["id"]}" data-whole-group checked' in visitor.api.get(manage).text
    saved = post_form(visitor, manage, [("whole_groups[]", core["id"])])
    assert saved.status == 200, saved.text
    kept = subscribers.find(world.page_id, subscriber.id)
    assert list(kept.component_ids) == [api["id"], database["id"]]


def test_the_ways_to_subscribe_read_as_a_sentence(world, visitor):
    update_page(world, allow_webhook_subscribers=False)
    publish(world)
    assert "Get notified</a> by email or text message when" in visitor.get("").text
    update_page(world, allow_sms_subscribers=False)
    publish(world)
    assert "Get notified</a> by email when" in visitor.get("").text
    update_page(world, allow_sms_subscribers=True, allow_webhook_subscribers=True)
    publish(world)
    ways = re.search(r"Get notified</a> by ([^<]*?) when", visitor.get("").text).group(1)
    assert re.fullmatch(r"email, text message, [a-z ]+(, [a-z ]+)* or [a-z ]+", ways), ways


def manage_page(visitor, world, **fields) -> str:
    answer = world.api.post(f"/v1/pages/{world.page_id}/subscribers", {"subscriber": fields})
    assert answer.status == 201, answer.text
    subscriber = subscribers.find(world.page_id, answer.json["id"])
    shown = visitor.api.get(subscribers.link_path(subscriber, subscribers.MANAGE))
    assert shown.status == 200, shown.text
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", shown.text))


def test_the_manage_page_says_how_notifications_travel(world, visitor):
    publish(world)
    email = f"reader-{world.page_id}@example.com"
    assert f"Notifications go by email to {email} once you confirm" in manage_page(
        visitor, world, email=email
    )
    assert "Notifications go by text message to +447911123456." in manage_page(
        visitor, world, phone_country="GB", phone_number="7911123456"
    )
    endpoint = "https://hooks.example.com/status"
    assert f"Notifications go as webhooks to {endpoint}." in manage_page(
        visitor, world, endpoint=endpoint, email=f"owner-{world.page_id}@example.com"
    )
