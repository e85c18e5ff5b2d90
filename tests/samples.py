"""Sample repositories and texts that several test files share."""

from __future__ import annotations

ENGINE_REPO = {
    "pkg/__init__.py": "",
    "pkg/config.py": (
        "import os\n\n\n"
        "def parse_config(path):\n"
        '    """Read the configuration file."""\n'
        "    if not os.path.exists(path):\n"
        '        raise FileNotFoundError("ECONNREFUSED config missing")\n'
        '    return {"path": path}\n'
    ),
    "pkg/cli.py": (
        "from pkg.config import parse_config\n\n\n"
        "def main():\n"
        '    cfg = parse_config("app.toml")\n'
        "    return cfg\n"
    ),
    "vendor/lib.py": (
        "from pkg.config import parse_config\n\n\n"
        "def vendored():\n"
        '    return parse_config("x")\n'
    ),
}

KEY = "vk-secret-0123456789"

FUNCTIONS = {
    "parse_config": "def parse_config(config_file):\n    with open(config_file) as fh:\n"
                    "        return toml.load(fh)\n",
    "send_email": "def send_email(to, subject, body):\n    smtp = SMTP(HOST)\n"
                  "    smtp.sendmail(FROM, [to], message(subject, body))\n",
    "hash_password": "def hash_password(raw, salt):\n    return pbkdf2(raw, salt, ROUNDS)\n",
    "render_template": "def render_template(name, context):\n"
                       "    return env.get_template(name).render(**context)\n",
    "connect_database": "def connect_database(url):\n    return engine.connect(url)\n",
    "resize_image": "def resize_image(img, width, height):\n"
                    "    return img.resize((width, height))\n",
    "log_error": "def log_error(message):\n    logger.error(message)\n",
    "parse_date": "def parse_date(text):\n    return datetime.strptime(text, '%Y-%m-%d')\n",
    "compress_file": "def compress_file(src, dst):\n    with gzip.open(dst, 'wb') as out:\n"
                     "        out.write(open(src, 'rb').read())\n",
    "retry_request": "def retry_request(fn, attempts):\n    for _ in range(attempts):\n"
                     "        try:\n            return fn()\n        except IOError:\n"
                     "            sleep(1)\n",
    "sort_users": "def sort_users(users):\n    return sorted(users, key=lambda u: u.name)\n",
    "validate_email_address": "def validate_email_address(addr):\n"
                              "    return EMAIL_RE.match(addr) is not None\n",
}
