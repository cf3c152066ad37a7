"""The studio in a real browser: a scripted session in headless Chromium against
`modelstore studio` on the fixture store (fixture.py), then on a Core Data store from the
corpus opened read-only. Steps run in order (their names are numbered) on one page; each
checks what the page shows against the store as another process reads it, and saves a
screenshot of the view to the artifacts folder."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from urllib.parse import quote

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fixture import NEXT_SCHEMA, make_store, write_messages  # noqa: E402
from studio import BINARY, Page, Studio, chromium, query  # noqa: E402

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus"
CORPUS = SHARED / "coredata-stores"
# A store whose model was not collected (legacy binary format): names and types inferred from its columns.
CORE_DATA_STORE = CORPUS / "magicalpanda__MagicalRecord" / "Samples" / "iOS" / "Resources" / "RecipeData" / "Recipes.sqlite"
# A store with its model: dates, booleans and relationships (to-one, many-to-many) as the model says.
MODELLED_STORE = CORPUS / "artsy__energy-legacy" / "Resources" / "CoreData" / "oss_stubbed_data.sqlite"
MODELLED_MODEL = SHARED / "coredata-models" / "artsy__energy-legacy" / "Resources" / "CoreData" / "ArtsyPartner.xcdatamodeld"


class StudioSessionTests(unittest.TestCase):
    """One studio, one page, the steps of a session in order."""

    @classmethod
    def setUpClass(cls):
        cls.folder = Path(tempfile.mkdtemp(prefix="studio-browser-"))
        cls.store = cls.folder / "tasks.msto"
        make_store(BINARY, cls.store)
        cls.studio = Studio("--store", str(cls.store))
        cls.driver = chromium()
        cls.page = Page(cls.driver)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.studio.stop()
        shutil.rmtree(cls.folder, ignore_errors=True)

    def tearDown(self):
        errors = [e for e in self.page.console_errors() if "favicon" not in e]
        self.assertEqual(errors, [], "the page logged errors")

    # -- the session

    def test_01_open_with_the_token(self):
        p = self.page
        self.driver.get(self.studio.url)
        p.wait(lambda d: "token=" not in d.current_url, "the token to leave the address bar")
        p.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#live-state").get_attribute("data-state") == "open", "the event stream")
        # The sidebar is drawn once store.info and model.get have answered (the stream may open first).
        expected = {"Project": "5", "Task": "139", "Person": "6", "Tag": "7"}
        p.wait(lambda d: {e.get_attribute("data-entity"): e.find_element(By.CSS_SELECTOR, ".nav-count").text
                          for e in p.all(".nav-entity")} == expected, f"the entities with their counts {expected}")
        p.one(".entity-card[data-entity='Task']")
        # Everything the page loaded came from the studio itself (no CDN, nothing from elsewhere).
        origin = self.studio.url.split("/?")[0]
        loaded = self.driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
        self.assertTrue(loaded, "the page loaded its files")
        self.assertEqual([u for u in loaded if not u.startswith(origin + "/")], [])
        p.screenshot("01-overview")

    def test_02_table_and_filter(self):
        p = self.page
        p.one(".nav-entity[data-entity='Task']").click()
        p.wait_table("Task")
        first_page = [o["_id"] for o in query(self.store, "Task", None, "--limit", "50")]
        self.assertEqual(first_page[:3], ["Task/1", "Task/2", "Task/3"])
        p.wait(lambda d: p.table_ids() == first_page, "a page of 50, by id ascending")
        # The count comes after the first page.
        p.wait(lambda d: p.one("#table-count").get_attribute("data-count") == "139", "the count of the tasks")
        predicate = 'done == NO AND priority >= 2'
        box = p.one("input.filter-input")
        box.clear()
        box.send_keys(predicate, Keys.ENTER)
        expected = [o["_id"] for o in query(self.store, "Task", predicate, "--limit", "50")]
        total = len(query(self.store, "Task", predicate))
        p.wait(lambda d: p.table_ids() == expected, "the filtered rows")
        p.wait(lambda d: p.one("#table-count").get_attribute("data-count") == str(total), "the filtered count")
        # Sorting by a column: priority descending, ties by id.
        p.one("th[data-key='priority'] .sort-button").click()
        p.one("th[data-key='priority'] .sort-button").click()
        expected = [o["_id"] for o in query(self.store, "Task", predicate, "--sort", "-priority", "--limit", "50")]
        p.wait(lambda d: p.table_ids() == expected and "sort=-priority" in d.current_url, "rows sorted by priority, descending")
        p.screenshot("02-table-filtered")
        # Another entity's table: its to-one shows the target's label, its to-many a count.
        p.one(".nav-entity[data-entity='Project']").click()
        p.wait_table("Project")
        p.wait(lambda d: "Ada Lovelace" in p.one("tr[data-id='Project/1'] td.toOne").text, "the owner's label")
        tasks = len(query(self.store, "Task", 'project == "Project/1"'))
        p.wait(lambda d: p.one("tr[data-id='Project/1'] td.toMany").text.split()[0] == str(tasks), "the project's task count")
        p.screenshot("02-table-project")

    def test_03_keyset_paging(self):
        p = self.page
        p.go("#/e/Task?sort=-due")
        expected = [o["_id"] for o in query(self.store, "Task", None, "--sort", "-due")]
        p.wait(lambda d: p.table_ids() == expected[:50], "the first page by due date, descending")
        p.one("[data-action='next']").click()
        p.wait(lambda d: p.table_ids() == expected[50:100], "the second page (nil dates come last)")
        p.one("[data-action='next']").click()
        p.wait(lambda d: p.table_ids() == expected[100:150], "the third page")
        p.wait(lambda d: p.one("[data-action='next']").get_attribute("disabled") is not None, "no fourth page")

    def test_04_bad_predicates_are_marked_at_their_offset(self):
        p = self.page
        p.go("#/e/Task")
        p.wait_table("Task")
        for text, offset, token in [
            ('priority >= 2 AND titel BEGINSWITH "Fix"', 18, "titel"),  # unknown key (checked against the entity)
            ("priority >= 2 AND (done == NO", 29, " "),  # syntax: end of input where ')' is expected
            ("priority >= AND done == NO", 12, "AND"),  # syntax: a keyword where a value belongs
        ]:
            box = p.one("input.filter-input")
            box.clear()
            box.send_keys(text, Keys.ENTER)
            def marked(d, text=text, offset=offset):
                """The error's mark once the page shows the error of `text` (not the previous one's)."""
                echo = d.find_element(By.CSS_SELECTOR, ".filter-error .filter-echo").get_attribute("textContent")
                mark = d.find_element(By.CSS_SELECTOR, ".filter-error mark.error-mark")
                return mark if echo.rstrip() == text.rstrip() and mark.get_attribute("data-offset") == str(offset) else None
            mark = p.wait(marked, f"the error mark at {offset} for {text!r}")
            self.assertEqual(mark.text if token.strip() else mark.get_attribute("textContent"), token)
            self.assertEqual(p.one("input.filter-input").get_attribute("aria-invalid"), "true")
            self.assertIn(f"at character {offset}", p.one(".filter-error").text)
            if offset == 18:
                p.screenshot("03-filter-error")
            if offset == 12:
                self.assertIn("found the keyword 'AND'", p.one(".filter-error").text)
                p.screenshot("03-filter-syntax-error")

    def test_05_relationship_navigation(self):
        p = self.page
        predicate = 'project != nil AND title BEGINSWITH "Ship"'
        p.go("#/e/Task?where=" + quote(predicate))
        shown = query(self.store, "Task", predicate, "--limit", "50")
        p.wait(lambda d: p.table_ids() == [o["_id"] for o in shown], "the filtered tasks")
        task_id, project_id = shown[0]["_id"], shown[0]["project"]
        # A to-one opens the object. (The rows are drawn again once the targets' labels are
        # read, so the link is looked up when it is clicked, again if it was replaced.)
        link = f"tr[data-id='{task_id}'] td.toOne a[href='#/o/{project_id}']"
        p.wait(lambda d: d.find_element(By.CSS_SELECTOR, link).click() is None, "the task's project link")
        p.wait(lambda d: d.find_element(By.CSS_SELECTOR, ".object-view").get_attribute("data-id") == project_id, "the project's object view")
        name = query(self.store, "Project", f'SELF == "{project_id}"')[0]["name"]
        p.wait(lambda d: name in d.find_element(By.CSS_SELECTOR, ".object-view h1").text, "the project's name as the heading")
        p.screenshot("04-object-view")
        p.one("a.rel-link.many[data-rel='tasks']").click()  # a to-many opens the filtered table
        tasks = [o["_id"] for o in query(self.store, "Task", f'project == "{project_id}"')]
        p.wait(lambda d: p.table_ids() == tasks[:50], "the project's tasks")
        self.assertEqual(p.one("input.filter-input").get_attribute("value"), f'project == "{project_id}"')
        self.assertEqual(p.one("#table-count").get_attribute("data-count"), str(len(tasks)))

    def test_06_edit_with_a_validation_error(self):
        p = self.page
        p.go("#/o/Task/5")
        title = p.one("#f-title")
        p.wait(lambda d: title.get_attribute("value") != "", "the task's values")
        before = query(self.store, "Task", 'SELF == "Task/5"')[0]
        title.clear()
        title.send_keys("Renamed in the studio")
        priority = p.one("#f-priority")
        priority.clear()
        priority.send_keys("70000")  # int16: refused by the server
        p.one("[data-action='save']").click()
        error = p.one(".field[data-key='priority'] .field-error")
        p.wait(lambda d: "-32768" in error.text, "the range error at the priority field")
        self.assertIn("has-error", p.one(".field[data-key='priority']").get_attribute("class"))
        self.assertEqual(p.one(".field[data-key='title'] .field-error").text, "", "no error at the other field")
        self.assertEqual(query(self.store, "Task", 'SELF == "Task/5"')[0], before, "nothing was saved")
        p.screenshot("05-validation-error")
        priority.clear()
        priority.send_keys("2")
        p.one("[data-action='save']").click()
        p.wait(lambda d: query(self.store, "Task", 'SELF == "Task/5"')[0]["title"] == "Renamed in the studio", "the saved title")
        after = query(self.store, "Task", 'SELF == "Task/5"')[0]
        self.assertEqual(after["priority"], 2)
        p.wait(lambda d: p.all(".field.has-error") == [], "the error to go")

    def test_07_delete_with_a_preview(self):
        p = self.page
        # A deny rule refuses: the preview names the blocking objects and nothing is deleted.
        p.go("#/o/Person/1")
        # (Scoped to the object: the previous view's own Delete button may still be there.)
        p.one(".object-view[data-id='Person/1'] [data-action='delete']").click()
        refused = p.one(".preview[data-preview='denied']")
        blocking = [e.text for e in refused.find_elements(By.CSS_SELECTOR, "[data-list='blocking'] .id-chip")]
        held = [o["_id"] for o in query(self.store, "Task", 'assignee == "Person/1"')]
        self.assertEqual(blocking, held[:len(blocking)])
        self.assertIn(f"× {len(held)}", refused.text)
        self.assertEqual(p.all("[data-action='confirm-delete']"), [], "no way to confirm a refused delete")
        p.screenshot("06-delete-denied")
        self.assertEqual(len(query(self.store, "Person", 'SELF == "Person/1"')), 1)
        # A cascade: the preview lists the project's tasks, and the delete removes exactly them.
        p.go("#/o/Project/3")
        p.one(".object-view[data-id='Project/3'] [data-action='delete']").click()
        preview = p.one(".preview[data-preview='ok']")
        tasks = [o["_id"] for o in query(self.store, "Task", 'project == "Project/3"')]
        self.assertTrue(tasks, "the project has tasks")
        self.assertIn(f"× {len(tasks)}", preview.find_element(By.CSS_SELECTOR, "[data-list='cascade']").text)
        shown = [e.text for e in preview.find_elements(By.CSS_SELECTOR, "[data-list='cascade'] .id-chip")]
        self.assertEqual(len(shown), min(12, len(tasks)), "up to 12 ids shown per entity")
        self.assertLessEqual(set(shown), set(tasks))
        self.assertEqual(len(query(self.store, "Project", 'SELF == "Project/3"')), 1, "the preview deleted nothing")
        p.screenshot("07-delete-cascade-preview")
        p.one("[data-action='confirm-delete']").click()
        p.wait(lambda d: "#/e/Project" in d.current_url, "the project table after the delete")
        p.wait(lambda d: "Project/3" not in p.table_ids() and len(p.table_ids()) == 4, "the project gone from its table")
        self.assertEqual(query(self.store, "Project", 'SELF == "Project/3"'), [])
        self.assertEqual(query(self.store, "Task", 'project == "Project/3"'), [])
        self.assertEqual(len(query(self.store, "Task")), 139 - len(tasks))

    def test_08_a_row_inserted_by_another_process_appears(self):
        p = self.page
        p.go("#/e/Task?where=" + quote('title BEGINSWITH "Live"'))
        p.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "table.grid tbody tr.empty-row"), "the empty filtered table")
        # Another process writes the same store file.
        reply = write_messages(BINARY, self.store, [
            {"method": "objects.insert", "params": {"entity": "Task", "values": {"title": "Live from another process", "priority": 3}}}],
            author="other-process")
        new_id = reply[0]["result"]["_id"]
        p.wait(lambda d: p.table_ids() == [new_id], "the row another process inserted")
        p.wait(lambda d: "Live from another process" in p.one(f"tr[data-id='{new_id}']").text, "the new row's title")
        p.wait(lambda d: p.one("#table-count").get_attribute("data-count") == "1", "the count to follow")
        p.screenshot("08-live-row")

    def test_09_history(self):
        p = self.page
        p.go("#/history")
        p.wait(lambda d: "other-process" in p.one("#history-list .tx").text, "the other process's commit, newest first")
        self.assertIn("INSERT", p.one("#history-list .tx").text.upper())
        authors = p.texts("#history-list .tx-author")
        self.assertIn("seed", authors)
        p.screenshot("09-history")

    def test_09b_an_open_object_follows_another_process(self):
        p = self.page
        task = next(o for o in query(self.store, "Task", "title != nil", "--sort", "-title") if o["_id"] != "Task/5")
        task_id = task["_id"]
        p.go(f"#/o/{task_id}")
        p.wait(lambda d: p.one("#f-title").get_attribute("value") == task["title"], "the task's title")
        # Another process changes it: the view shows the new value.
        write_messages(BINARY, self.store, [
            {"method": "objects.update", "params": {"id": task_id, "values": {"title": "Changed by another process"}}}],
            author="other-process")
        p.wait(lambda d: p.one("#f-title").get_attribute("value") == "Changed by another process", "the other process's title")
        # With an edit of its own in the form, the page keeps it and says what happened.
        notes = p.one("#f-notes")
        if notes.get_attribute("disabled") is not None:
            p.one(".field[data-key='notes'] .null-box").click()
        notes.clear()
        notes.send_keys("my unsaved note")
        write_messages(BINARY, self.store, [
            {"method": "objects.update", "params": {"id": task_id, "values": {"priority": 3}}}], author="other-process")
        banner = p.one(".object-view .banner")
        p.wait(lambda d: "Another process changed this object" in banner.text, "the banner about the other change")
        self.assertEqual(p.one("#f-notes").get_attribute("value"), "my unsaved note", "the page's own edit is kept")
        p.screenshot("09b-object-changed-elsewhere")
        # Another process deletes it: the form says so and takes no more edits.
        write_messages(BINARY, self.store, [{"method": "objects.delete", "params": {"id": task_id}}], author="other-process")
        p.wait(lambda d: "Another process deleted this object" in p.one(".object-view .banner").text, "the banner about the delete")
        self.assertTrue(all(e.get_attribute("disabled") is not None for e in p.all(".object-form input, .object-form textarea")))
        self.assertEqual(query(self.store, "Task", f'SELF == "{task_id}"'), [])

    def test_10_migration_status_and_plan(self):
        p = self.page
        p.go("#/migrations")
        p.wait(lambda d: d.find_element(By.CSS_SELECTOR, "[data-field='version']").text == "1", "the current version")
        area = p.one("#schema-input")
        # Typing a long schema key by key is slow; the page reads the textarea's value.
        self.driver.execute_script("arguments[0].value = arguments[1]", area, json.dumps(NEXT_SCHEMA, indent=2))
        p.one("[data-action='check']").click()
        p.wait(lambda d: d.find_element(By.CSS_SELECTOR, "#migration-status").text == "lightweight", "the migration status")
        plan = p.one("#migration-plan")
        p.wait(lambda d: "rename column Task.notes to details" in plan.text, "the planned steps")
        self.assertIn("Person.timeZone", plan.text)
        self.assertIn("notes", query(self.store, "Task", None, "--limit", "1", "--select", "notes")[0], "planning changed nothing")
        if shutil.which("dot"):  # Graphviz draws the two versions side by side
            p.wait(lambda d: d.execute_script(
                "const i = document.querySelector('#migration-result img.diagram-image'); return i && i.complete && i.naturalWidth > 0"),
                "the migration's diagram")
        p.screenshot("10-migration-plan", show="#migration-result")

    def test_11_schema(self):
        p = self.page
        p.go("#/schema")
        p.one(".schema-card[data-entity='Task']")
        # With Graphviz installed the server draws the diagram; without, the page says why.
        drawn = "#diagram img.diagram-image" if shutil.which("dot") else "#diagram [data-notice]"
        p.wait(lambda d: d.find_elements(By.CSS_SELECTOR, drawn), f"the schema's diagram ({drawn})")
        if shutil.which("dot"):
            p.wait(lambda d: d.execute_script("const i = document.querySelector('#diagram img'); return i.complete && i.naturalWidth > 0"),
                   "the diagram image to load")
        p.screenshot("11-schema")

    def test_12_store_data_is_shown_as_text(self):
        p = self.page
        hostile = '<img src=x onerror="document.title=\'pwned\'"><b>bold</b>'
        reply = write_messages(BINARY, self.store, [
            {"method": "objects.insert", "params": {"entity": "Task", "values": {"title": hostile, "notes": "<script>window.pwned = 1</script>"}}}],
            author="<i>author</i>")
        task = reply[0]["result"]["_id"]
        title = self.driver.title
        p.go("#/e/Task?where=" + quote('title BEGINSWITH "<img"'))
        p.wait(lambda d: p.table_ids() == [task], "the hostile row")
        p.wait(lambda d: p.one(f"tr[data-id='{task}'] td.t-string").text == hostile, "the hostile title as its characters")
        p.go(f"#/o/{task}")
        p.wait(lambda d: hostile in d.find_element(By.CSS_SELECTOR, ".object-view h1").text, "the hostile title as the heading")
        self.assertEqual(p.one("#f-notes").get_attribute("value"), "<script>window.pwned = 1</script>")
        p.go("#/history")
        p.wait(lambda d: "<i>author</i>" in p.one("#history-list .tx-author").text, "the hostile author")
        self.assertEqual(self.driver.execute_script(
            "return [document.querySelectorAll('main img, main b, main i, main script').length, window.pwned === undefined]"), [0, True])
        self.assertEqual(self.driver.title, title, "no handler of the data ran")


@unittest.skipUnless(CORE_DATA_STORE.exists(), f"the Core Data corpus store {CORE_DATA_STORE} is absent")
class CoreDataStoreTests(unittest.TestCase):
    """A Core Data store from the corpus, opened in place read-only: the same views, no writes."""

    @classmethod
    def setUpClass(cls):
        cls.studio = Studio("--store", str(CORE_DATA_STORE.resolve()), "--format", "coredata")
        cls.driver = chromium()
        cls.page = Page(cls.driver)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.studio.stop()

    def test_browse_read_only(self):
        p = self.page
        self.driver.get(self.studio.url)
        p.one(".badge-coredata")
        p.one(".badge-readonly")
        p.one(".nav-entity[data-entity='Recipe']").click()
        p.wait_table("Recipe")
        expected = [o["_id"] for o in query(CORE_DATA_STORE.resolve(), "Recipe", None, "--coredata")]
        p.wait(lambda d: p.table_ids() == expected[:50], "the recipes, as the Core Data store holds them")
        p.screenshot("12-coredata-table")
        first = expected[0]
        p.go(f"#/o/{first}")
        p.one(".object-view .badge-readonly")
        p.wait(lambda d: d.find_elements(By.CSS_SELECTOR, ".object-form .field"), "the recipe's fields")
        self.assertEqual(p.all("[data-action='save']") + p.all("[data-action='delete']"), [], "nothing to save or delete")
        self.assertTrue(all(e.get_attribute("readonly") is not None or e.get_attribute("disabled") is not None
                            for e in p.all(".object-form input[type='text'], .object-form textarea, .object-form select")))
        p.screenshot("13-coredata-object")


def core_data_fetch(store: Path, model: Path, params: dict) -> list[dict]:
    """query.fetch's objects from `modelstore serve --format coredata --model` (another process)."""
    message = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "query.fetch", "params": params})
    p = subprocess.run([BINARY, "serve", "--format", "coredata", "--store", str(store), "--model", str(model)],
                       input=message + "\n", capture_output=True, text=True, timeout=120)
    reply = json.loads(p.stdout.splitlines()[0]) if p.stdout.strip() else {}
    if "result" not in reply:
        raise AssertionError(f"modelstore serve --format coredata failed: {reply or p.stderr}")
    return reply["result"]["objects"]


@unittest.skipUnless(MODELLED_STORE.exists() and MODELLED_MODEL.exists(), f"the corpus store {MODELLED_STORE} or its model is absent")
class CoreDataModelledStoreTests(unittest.TestCase):
    """A Core Data store from the corpus opened in place with its model (--model): values and
    relationships as the model says, not Z columns."""

    @classmethod
    def setUpClass(cls):
        cls.store, cls.model = MODELLED_STORE.resolve(), MODELLED_MODEL.resolve()
        cls.studio = Studio("--store", str(cls.store), "--format", "coredata", "--model", str(cls.model))
        cls.driver = chromium()
        cls.page = Page(cls.driver)

    @classmethod
    def tearDownClass(cls):
        cls.driver.quit()
        cls.studio.stop()

    def test_dates_and_relationships_as_the_model_says(self):
        p = self.page
        self.driver.get(self.studio.url)
        p.one(".badge-coredata")
        p.one(".badge-readonly")
        shows = core_data_fetch(self.store, self.model, {"entity": "Show", "toMany": "count"})
        show = next(o for o in shows if o["startsAt"] and o["startsAt"] != o["endsAt"] and o["cover"] and o["artworks"])
        p.go("#/e/Show")
        p.wait_table("Show")
        p.wait(lambda d: p.table_ids() == [o["_id"] for o in shows][:50], "the shows, as the Core Data store holds them")
        def cell(key):
            """The show's cell in the column of `key` (looked up anew: rows are drawn again once labels are read)."""
            return self.driver.execute_script(
                "const row = document.querySelector(`table.grid tr[data-id='${arguments[0]}']`); if (!row) return null;"
                "const i = [...document.querySelectorAll('table.grid thead th')].findIndex((t) => t.dataset.key === arguments[1]);"
                "return i < 0 ? null : row.cells[i];", show["_id"], key)

        # A date column shows a date (Core Data's seconds since 2001 read as the model's Date).
        starts = show["startsAt"]
        p.wait(lambda d: (c := cell("startsAt")) is not None and c.get_attribute("class") == "t-date"
               and c.text == f"{starts[:10]} {starts[11:16]} UTC", "the show's start as a date")
        # A to-one is a link to its object, a to-many (many-to-many here) a count that opens them.
        p.wait(lambda d: (c := cell("cover")) is not None and c.find_elements(By.CSS_SELECTOR, f"a[href='#/o/{show['cover']}']"),
               "the cover's link")
        p.wait(lambda d: (c := cell("artworks")) is not None and c.text.split()[:1] == [str(show["artworks"])], "the artworks' count")
        p.screenshot("14-coredata-model-table")
        p.wait(lambda d: (c := cell("artworks")) is not None and c.find_element(By.CSS_SELECTOR, "a.rel-link").click() is None,
               "the artworks' link")
        artworks = core_data_fetch(self.store, self.model, {"entity": "Artwork", "where": f'ANY shows == "{show["_id"]}"'})
        self.assertEqual(len(artworks), show["artworks"])
        p.wait(lambda d: sorted(p.table_ids()) == sorted(o["_id"] for o in artworks), "the show's artworks, through the inverse")
        p.go(f"#/o/{show['_id']}")
        p.wait(lambda d: p.one("#f-startsAt").get_attribute("value") == starts, "the show's start date in its field")
        p.one(f".rel-link[href='#/o/{show['cover']}']")
        self.assertEqual(p.all("[data-action='save']") + p.all("[data-action='delete']"), [], "nothing to save or delete")
        p.screenshot("15-coredata-model-object")


if __name__ == "__main__":
    unittest.main()
