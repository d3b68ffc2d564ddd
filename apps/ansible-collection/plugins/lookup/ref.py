# Copyright: Vaultline contributors
# MIT License (see the repository's LICENSE)
from __future__ import annotations

DOCUMENTATION = r"""
name: ref
author: Vaultline contributors
short_description: Read secrets by vaultline:// reference
description:
  - Resolves C(vaultline://) references against a Vaultline server, TeamPass 2 or TeamPass 3, with
    the C(vaultline) command (C(npm install -g @vaultline/cli)), as community.general's onepassword
    and bitwarden lookups use C(op) and C(bw).
  - All the terms of one lookup are resolved in one call of the command, in one batch (one read
    of the items they name).
  - The command signs in as it does everywhere, from the controller's environment
    (C(VAULTLINE_URL) with C(VAULTLINE_API_KEY); on TeamPass 3 C(VAULTLINE_LOGIN),
    C(VAULTLINE_PASSWORD) and C(VAULTLINE_API_KEY) or C(VAULTLINE_PERSONAL_ACCESS_TOKEN);
    C(VAULTLINE_OIDC_TOKEN)) or from a connection stored with C(vaultline connect). The options
    below override the environment. A TeamPass 3 session is kept between lookups, sealed, so that a
    play signs in once.
  - Values are returned as unsafe text, never templated. Use C(no_log) on tasks that show them.
options:
  _terms:
    description: References, such as C(vaultline://42/password), C(vaultline://Ops/Databases/prod%20db/login) or C(vaultline://42/otp).
    required: true
    type: list
    elements: str
  url:
    description: The vault's base URL; C(VAULTLINE_URL) otherwise.
    type: str
    vars:
      - name: vaultline_url
  api_key:
    description: The API key (on TeamPass 3 the personal API key); C(VAULTLINE_API_KEY) otherwise.
    type: str
    vars:
      - name: vaultline_api_key
  login:
    description: The login to act for (on TeamPass 3 the login that signs in); C(VAULTLINE_LOGIN) otherwise.
    type: str
    vars:
      - name: vaultline_login
  password:
    description: The TeamPass 3 password; C(VAULTLINE_PASSWORD) otherwise.
    type: str
    vars:
      - name: vaultline_password
  personal_access_token:
    description: A TeamPass 3 personal access token; C(VAULTLINE_PERSONAL_ACCESS_TOKEN) otherwise.
    type: str
    vars:
      - name: vaultline_personal_access_token
  oidc_token:
    description: An OIDC ID token the vault trusts; C(VAULTLINE_OIDC_TOKEN) otherwise.
    type: str
    vars:
      - name: vaultline_oidc_token
  connection:
    description: A connection stored with C(vaultline connect --name); the default connection otherwise.
    type: str
    vars:
      - name: vaultline_connection
  cli_path:
    description: The C(vaultline) command.
    type: str
    default: vaultline
    env:
      - name: VAULTLINE_CLI
    vars:
      - name: vaultline_cli
  timeout:
    description: Seconds the command may take.
    type: int
    default: 120
notes:
  - Secrets given as options reach the command through its environment, never its arguments.
  - A failure (a missing item, a refused key, a vault that cannot be reached) fails the task with
    one line, which is also displayed when the task has C(no_log) (it never holds a value).
"""

EXAMPLES = r"""
- name: Write the database password into the app's config
  ansible.builtin.template:
    src: app.conf.j2
    dest: /etc/app/app.conf
    mode: "0600"
  vars:
    db_password: "{{ lookup('vaultline.vault.ref', 'vaultline://Ops/Databases/prod%20db/password') }}"
  no_log: true

- name: Several values in one batch
  ansible.builtin.set_fact:
    db: "{{ dict(['user', 'password'] | zip(query('vaultline.vault.ref', 'vaultline://42/login', 'vaultline://42/password'))) }}"
  no_log: true
"""

RETURN = r"""
_raw:
  description: The values, in the order of the terms (an attachment, C(file:NAME), as base64).
  type: list
  elements: str
"""

import json
import os
import subprocess

from ansible import constants as C
from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase
from ansible.utils.display import Display
from ansible.utils.unsafe_proxy import wrap_var

display = Display()

# Option -> the CLI's environment variable (never an argument: arguments show in `ps`).
ENVIRONMENT = {
    "url": "VAULTLINE_URL",
    "api_key": "VAULTLINE_API_KEY",
    "login": "VAULTLINE_LOGIN",
    "password": "VAULTLINE_PASSWORD",
    "personal_access_token": "VAULTLINE_PERSONAL_ACCESS_TOKEN",
    "oidc_token": "VAULTLINE_OIDC_TOKEN",
}


def _fail(message):
    """Fails the task with one line, prefixed with the plugin's name.

    The line is also displayed on its own: Ansible hides a failed task's message under no_log, and
    this one never holds a value or a key (the CLI redacts its errors), so people see why.
    """
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    text = "vaultline.vault.ref: " + ("; ".join(lines) or "the vaultline command failed")
    display.display(text, color=C.COLOR_ERROR, stderr=True)
    raise AnsibleLookupError(text)


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        references = [str(term) for term in terms]
        if not references:
            return []
        for reference in references:
            if not reference.startswith("vaultline://"):
                _fail("expected vaultline:// references, received %s" % json.dumps(reference[:60]))

        env = dict(os.environ)
        for option, variable in ENVIRONMENT.items():
            value = self.get_option(option)
            if value:
                env[variable] = str(value)
        env["NO_COLOR"] = "1"  # its output is read, not shown

        command = [self.get_option("cli_path")]
        if self.get_option("connection"):
            command += ["--connection", self.get_option("connection")]
        command += ["read", "--json"] + references
        display.vvv("vaultline.vault.ref: resolving %d reference(s) in one call" % len(references))
        try:
            done = subprocess.run(
                command,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=self.get_option("timeout"),
                check=False,
            )
        except FileNotFoundError:
            _fail(
                "the vaultline command was not found (%s): install it with npm install -g @vaultline/cli, "
                "or set cli_path or VAULTLINE_CLI" % json.dumps(command[0])
            )
        except subprocess.TimeoutExpired:
            _fail("the vaultline command took longer than %d s" % self.get_option("timeout"))

        if done.returncode != 0:
            # With --json, the CLI's error is one JSON line on stderr; its text never holds a value.
            message = None
            for line in done.stderr.decode("utf-8", "replace").splitlines():
                try:
                    parsed = json.loads(line)
                except ValueError:
                    continue
                if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
                    message = parsed["error"].get("message")
            _fail(message or "the vaultline command failed with exit code %d" % done.returncode)

        try:
            answer = json.loads(done.stdout.decode("utf-8"))
        except ValueError:
            _fail("the vaultline command printed something other than JSON")
        results = answer if isinstance(answer, list) else [answer]
        if len(results) != len(references):
            _fail("the vaultline command answered %d value(s) for %d reference(s)" % (len(results), len(references)))
        values = []
        for result in results:
            values.append(result["base64"] if "base64" in result else result["value"])
        return [wrap_var(value) for value in values]
