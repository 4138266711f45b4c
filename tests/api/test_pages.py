import pytest


def test_get_page_in_both_styles(world):
    current = world.api.get(f"/v1/pages/{world.page_id}")
    archived = world.api.get(f"/v1/pages/{world.page_id}.json")
    assert current.status == 200, current.text
    assert current.json["id"] == world.page_id
    assert current.json["name"] == "Acme"
    assert current.json["hero_cover"] is None
    assert archived.status == 200
    assert archived.json["layout"] == "basic"
    assert archived.json["hero_cover"] == {
        "normal_url": None,
        "original_url": None,
        "retina_url": None,
        "size": None,
        "updated_at": None,
    }


def test_list_pages_shows_the_organizations_pages(world):
    answer = world.api.get("/v1/pages")
    assert answer.status == 200
    assert [page["id"] for page in answer.json] == [world.page_id]


@pytest.mark.parametrize("form", [False, True])
@pytest.mark.parametrize("method", ["patch", "put"])
def test_update_page_in_both_encodings(world, form, method):
    answer = getattr(world.api, method)(
        f"/v1/pages/{world.page_id}",
        {
            "page": {
                "name": "Renamed",
                "css_greens": "00ff00",
                "time_zone": "Europe/Paris",
                "allow_sms_subscribers": False,
                "branding": "premium",
            }
        },
        form=form,
    )
    assert answer.status == 200, answer.text
    page = answer.json
    assert page["name"] == "Renamed"
    assert page["css_greens"] == "#00ff00"
    assert page["time_zone"] == "Europe/Paris"
    assert page["allow_sms_subscribers"] is False
    assert page["branding"] == "premium"
    assert world.api.get(f"/v1/pages/{world.page_id}").json["name"] == "Renamed"


def test_archived_update_takes_t_and_f_layout_and_images(world):
    answer = world.api.patch(
        f"/v1/pages/{world.page_id}.json",
        [
            ("page[allow_email_subscribers]", "f"),
            ("page[layout]", "premium"),
            ("page[hero_cover_url]", "https://img.example.com/cover.png"),
        ],
        form=True,
    )
    assert answer.status == 200, answer.text
    assert answer.json["allow_email_subscribers"] is False
    assert answer.json["layout"] == "premium"
    assert answer.json["hero_cover"]["original_url"] == "https://img.example.com/cover.png"
    assert answer.json["hero_cover"]["updated_at"].endswith("Z")


@pytest.mark.parametrize(
    "field, value",
    [
        ("css_reds", "red"),
        ("time_zone", "Mars/Olympus"),
        ("notifications_from_email", "not-an-address"),
        ("subdomain", "bad_sub domain"),
        ("branding", "gold"),
        ("name", ""),
        ("url", "ftp://example.com"),
        ("hidden_from_search", "maybe"),
        ("name", 42),
    ],
)
def test_invalid_page_fields_are_422_naming_the_field(world, field, value):
    answer = world.api.patch(f"/v1/pages/{world.page_id}", {"page": {field: value}})
    assert answer.status == 422, answer.text
    assert answer.json["error"] == "Unprocessable entity"
    assert field in answer.json["errors"]


def test_subdomain_is_unique(make_world):
    first = make_world()
    second = make_world()
    taken = first.api.get(f"/v1/pages/{first.page_id}").json["subdomain"]
    answer = second.api.patch(f"/v1/pages/{second.page_id}", {"page": {"subdomain": taken}})
    assert answer.status == 422
    assert answer.json["errors"] == {"subdomain": ["has already been taken"]}


def test_changing_subdomain_frees_the_old_one(make_world):
    first = make_world()
    second = make_world()
    old = first.api.get(f"/v1/pages/{first.page_id}").json["subdomain"]
    assert (
        first.api.patch(f"/v1/pages/{first.page_id}", {"page": {"subdomain": old + "-new"}}).status
        == 200
    )
    answer = second.api.patch(f"/v1/pages/{second.page_id}", {"page": {"subdomain": old}})
    assert answer.status == 200, answer.text


def test_another_organizations_page_is_404(make_world):
    mine, theirs = make_world(), make_world()
    for path in (f"/v1/pages/{theirs.page_id}", f"/v1/pages/{theirs.page_id}.json"):
        answer = mine.api.get(path)
        assert answer.status == 404
        assert answer.json == {"error": "The requested resource could not be found"}
    assert mine.api.patch(f"/v1/pages/{theirs.page_id}", {"page": {"name": "x"}}).status == 404


def test_create_page_extension(world):
    answer = world.api.post("/v1/pages", {"page": {"name": "Second Page"}})
    assert answer.status == 201, answer.text
    assert answer.json["subdomain"].startswith("second-page")
    assert len(world.api.get("/v1/pages").json) == 2


def test_create_page_requires_a_name(world):
    answer = world.api.post("/v1/pages", {"page": {"headline": "no name"}})
    assert answer.status == 422
    assert "name" in answer.json["errors"]


def test_get_page_costs_few_dynamodb_calls_and_no_scan(world, dynamodb_calls):
    world.api.get(f"/v1/pages/{world.page_id}")
    # The key, its user and the page, read together (the key names its user).
    assert dynamodb_calls.summary() == {"BatchGetItem": 1}


def test_webhook_secret_can_be_read_and_rotated(world):
    path = f"/v1/pages/{world.page_id}/webhook_secret"
    first = world.api.get(path)
    assert first.status == 200
    assert len(first.json["webhook_secret"]) == 64
    assert world.api.get(path).json == first.json
    rotated = world.api.post(path + "/rotate")
    assert rotated.status == 200
    assert rotated.json["webhook_secret"] != first.json["webhook_secret"]
    assert world.api.get(path).json == rotated.json
