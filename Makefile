# Two commands for a newcomer: `make run` (the local stack) and `make test` (the whole suite).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
# Compiled code is kept (`__pycache__`, ignored by git) even where the environment asks Python
# not to write it: a test run starts hundreds of processes (stacks, their children, admin
# calls), and each compiled the project's modules anew (0.2-0.3 s of CPU each), and each test
# worker rewrote every test module's asserts (10 s of a collection that takes 4 s from cache).
export PYTHONDONTWRITEBYTECODE :=

.PHONY: run run-regions test bootstrap admin bench load lint format fuzz

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Marker files: a second `make run` reuses the venv until the requirements change. The local
# set is the runtime set plus the emulator; the dev set adds the test tools to it.
$(VENV)/.local: requirements.txt requirements-local.txt | $(VENV)/bin/python
	$(PIP) install -r requirements-local.txt
	touch $@

$(VENV)/.dev: requirements.txt requirements-local.txt requirements-dev.txt | $(VENV)/bin/python
	$(PIP) install -r requirements-dev.txt
	touch $@ $(VENV)/.local

run: $(VENV)/.local
	$(PY) -m chalicelib.local

# The local stack as two regions, a and b, behind one address (docs/local-stack.md).
run-regions: $(VENV)/.local
	$(PY) -m chalicelib.local.regions

bootstrap: $(VENV)/.local
	@$(PY) -m chalicelib.admin bootstrap

admin: $(VENV)/.local
	@$(PY) -m chalicelib.admin $(ARGS)

lint: $(VENV)/.dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(VENV)/.dev
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

# The package check and the deploy rehearsal run beside the suite, one after the other on the
# same package, at the lowest priority: they take the cores the suite leaves idle while its
# end-to-end tests wait, not the suite's. Their output follows the suite's, and any of them
# failing fails `make test` (`-k`: a failed check still lets the rehearsal run).
# The suite also records what each Lambda function uses of AWS, and then checks that each
# role grants exactly that (infra/grants.py).
test: lint chromium node alertmanager
	@nice -n 19 $(MAKE) --no-print-directory -k infra-check deploy-rehearsal \
		> .infra-check.log 2>&1 & checking=$$!; \
	uses=$$(mktemp -d); \
	AWS_USES_DIR=$$uses $(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder; tested=$$?; \
	$(PY) -m infra.grants check $$uses; granted=$$?; rm -rf $$uses; \
	wait $$checking; checked=$$?; cat .infra-check.log; \
	[ $$checked -eq 0 ] || echo "make infra-check or make deploy-rehearsal failed (above)"; \
	[ $$tested -eq 0 ] && [ $$granted -eq 0 ] && [ $$checked -eq 0 ]

# After a change of what the code calls of AWS: the suite's record of each function's uses,
# written to infra/function_uses.json, and the template's policies from it.
.PHONY: uses
uses: $(VENV)/.dev
	@uses=$$(mktemp -d); \
	AWS_USES_DIR=$$uses $(PY) -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder && \
	$(PY) -m infra.grants write $$uses; written=$$?; rm -rf $$uses; [ $$written -eq 0 ]
	$(PY) -m infra.generate

# The public page's browser tests drive Debian's chromium and chromedriver (no browser
# download is possible); installed once, when missing.
.PHONY: chromium
chromium:
	@(command -v chromium && command -v chromedriver) >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium chromium-driver)

# The CloudFront functions of the published site (infra/cloudfront/) are tested with node's
# test runner, from pytest (tests/infra/test_cloudfront_functions.py): Debian's nodejs,
# installed once, when missing.
.PHONY: node
node:
	@command -v node >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs)

# The alert integrations' end-to-end test (tests/e2e/test_alerts_e2e.py) runs a real
# Alertmanager, with the README's configuration: Debian's, installed once, when missing.
.PHONY: alertmanager
alertmanager:
	@command -v prometheus-alertmanager >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y prometheus-alertmanager)

# `make test` fuzzes every operation of /v1/openapi.json and of Statuspage's own description
# with a few examples each; this runs the same tests with many more (FUZZ_EXAMPLES per
# operation, same seeds), on two workers.
fuzz: $(VENV)/.dev
	FUZZ_COVERAGE=1 FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-100} $(PY) -m pytest -q -n 2 \
		tests/api/test_fuzz.py tests/api/test_fuzz_reference.py

# The published site's bench loads the public page with wrk and compares it with a bare node
# server answering the same bytes: both from Debian's packages, installed once, when missing.
.PHONY: wrk
wrk: node
	@command -v wrk >/dev/null || \
		(apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y wrk)

bench: $(VENV)/.dev wrk
	$(PY) -m pytest -q -m bench -s tests/bench

# 50 clients for 60 s against a stack of its own: throughput, errors, p50/p99 per kind.
load: $(VENV)/.dev
	$(PY) -m tests.bench.load $(ARGS)

# Deployment to AWS. `make package`: the prod Lambda zip and SAM template in dist/, built from a
# Python 3.13 venv because `chalice package` sets the Lambda runtime from the Python it runs on;
# `make infra-check` (part of `make test`) packages and runs cfn-lint on the result.
.PHONY: package infra infra-check
PACKAGE_VENV := .venv-package
CFNLINT_VENV := .venv-cfnlint
DIST := dist

# Regenerates the committed infra/resources.json and .chalice/policy-prod.json from the models
# and the app (tests/infra fails until they match the code).
infra: $(VENV)/.local
	$(PY) -m infra.generate

# Both tool venvs are installed without compiling their modules (`--no-compile`): they run one
# command each, beside the suite, and compiling every installed module cost 20 s of the
# check's 55 s of CPU.
$(PACKAGE_VENV)/.installed: requirements.txt requirements-local.txt
	rm -rf $(PACKAGE_VENV)
	PYTHON313=$$(sh infra/python313.sh) && $$PYTHON313 -m venv $(PACKAGE_VENV)
	$(PACKAGE_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-compile -r requirements-local.txt
	touch $@

$(CFNLINT_VENV)/.installed: infra/requirements-cfnlint.txt
	rm -rf $(CFNLINT_VENV)
	$(PYTHON) -m venv $(CFNLINT_VENV)
	$(CFNLINT_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-compile -r infra/requirements-cfnlint.txt
	touch $@

# The region only satisfies chalice's AWS session: the template says ${AWS::Region} throughout.
# Chalice's REST API has a resource per path segment of every route (near API Gateway's quota
# of 300); infra/greedy_routes.py then gives it two, `/` and `/{proxy+}`, and the app routes.
package: $(PACKAGE_VENV)/.installed
	rm -rf $(DIST)
	AWS_DEFAULT_REGION=$${AWS_DEFAULT_REGION:-us-east-1} \
		$(PACKAGE_VENV)/bin/chalice package --stage prod --merge-template infra/resources.json $(DIST)
	$(PACKAGE_VENV)/bin/python -m infra.greedy_routes $(DIST)/sam.json
	@ls -l $(DIST)

# The deploy of docs/deploy.md, rehearsed against an emulator of its own (infra/rehearsal.py):
# its commands as written, with the AWS CLI of its own venv, then the stack it made checked
# against the code, and a write and a read through the API on the tables it made.
AWSCLI_VENV := .venv-awscli

$(AWSCLI_VENV)/.installed: infra/requirements-awscli.txt
	rm -rf $(AWSCLI_VENV)
	$(PYTHON) -m venv $(AWSCLI_VENV)
	$(AWSCLI_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-compile -r infra/requirements-awscli.txt
	touch $@

.PHONY: deploy-rehearsal
deploy-rehearsal: package $(VENV)/.local $(CFNLINT_VENV)/.installed $(AWSCLI_VENV)/.installed
	$(PY) -m infra.rehearsal $(DIST)

infra-check: package $(CFNLINT_VENV)/.installed
	$(CFNLINT_VENV)/bin/cfn-lint $(DIST)/sam.json
	@echo "cfn-lint: $(DIST)/sam.json has no errors"
	$(CFNLINT_VENV)/bin/python -m infra.check_package $(DIST)/sam.json
