// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the corpus holds `${VAR}` placeholders on purpose.
/**
 * The secret-detection corpus: snippets of real-world shapes (env files, code, YAML, JSON, keys),
 * each saying which literals are secrets. Fake tokens only, and none is written here whole: each
 * `{name}` in a template is replaced at test time by a value built from parts with a seeded
 * generator, so the repository holds nothing that a push-protection scanner would flag, and every
 * run sees the same corpus. `[[…]]` marks the span a detector must report (a true positive);
 * anything else it reports is a false positive.
 */

/** One snippet: its language and the literals that are secrets. */
export interface CorpusCase {
  name: string;
  languageId: string;
  text: string;
  secrets: string[];
}

interface Template {
  name: string;
  languageId: string;
  template: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const BASE64 = `${ALNUM}+/`;
const BASE64URL = `${ALNUM}-_`;

/** mulberry32: a small seeded generator, so that the corpus is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function makeGenerators(random: () => number): Record<string, () => string> {
  const pick = (alphabet: string, length: number) =>
    Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  const one = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  // Prefixes are joined from pieces: no complete token format appears in the source.
  const p = (...parts: string[]) => parts.join('');
  const b64url = (text: string) => btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const words = ['Orchid', 'Falcon', 'Granite', 'Harbor', 'Juniper', 'Kestrel', 'Lantern', 'Maple'];
  const pemBody = (lines: number) => Array.from({ length: lines }, () => pick(BASE64, 64)).join('\n');
  return {
    ghp: () => p('gh', 'p_', pick(ALNUM, 36)),
    gho: () => p('gh', 'o_', pick(ALNUM, 36)),
    ghs: () => p('gh', 's_', pick(ALNUM, 36)),
    github_pat: () => p('github', '_pat_', pick(ALNUM, 22), '_', pick(ALNUM, 59)),
    glpat: () => p('gl', 'pat-', pick(`${ALNUM}_-`, 20)),
    glrt: () => p('gl', 'rt-', pick(ALNUM, 20)),
    xoxb: () => p('xo', 'xb-', pick(DIGITS, 12), '-', pick(DIGITS, 13), '-', pick(ALNUM, 24)),
    xoxp: () =>
      p('xo', 'xp-', pick(DIGITS, 12), '-', pick(DIGITS, 12), '-', pick(DIGITS, 13), '-', pick(HEX, 32)),
    xapp: () => p('xa', 'pp-1-', pick(UPPER + DIGITS, 11), '-', pick(DIGITS, 13), '-', pick(HEX, 64)),
    slackhook: () =>
      p(
        'https://hooks.',
        'slack.com/services/T',
        pick(UPPER + DIGITS, 8),
        '/B',
        pick(UPPER + DIGITS, 10),
        '/',
        pick(ALNUM, 24),
      ),
    sk_live: () => p('sk', '_live_', pick(ALNUM, 99)),
    sk_test: () => p('sk', '_test_', pick(ALNUM, 24)),
    rk_live: () => p('rk', '_live_', pick(ALNUM, 34)),
    whsec: () => p('wh', 'sec_', pick(ALNUM, 32)),
    akia: () => p('AK', 'IA', pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)),
    asia: () => p('AS', 'IA', pick('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)),
    aws_secret: () => pick(BASE64, 40),
    aiza: () => p('AI', 'za', pick(`${ALNUM}_-`, 35)),
    jwt: () =>
      [
        b64url(JSON.stringify({ alg: one(['HS256', 'RS256', 'ES256']), typ: 'JWT' })),
        b64url(JSON.stringify({ sub: pick(DIGITS, 8), name: one(words), iat: 1_700_000_000 })),
        pick(BASE64URL, 43),
      ].join('.'),
    pem_rsa: () => p('-----BEGIN RSA ', 'PRIVATE KEY-----\n', pemBody(8), '\n-----END RSA PRIVATE KEY-----'),
    pem: () => p('-----BEGIN ', 'PRIVATE KEY-----\n', pemBody(6), '\n-----END PRIVATE KEY-----'),
    pem_openssh: () =>
      p(
        '-----BEGIN OPENSSH ',
        'PRIVATE KEY-----\n',
        'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
        '\n',
        pemBody(4),
        '\n-----END OPENSSH PRIVATE KEY-----',
      ),
    pem_escaped: () =>
      p(
        '-----BEGIN ',
        'PRIVATE KEY-----\\n',
        pick(BASE64, 64),
        '\\n',
        pick(BASE64, 64),
        '\\n-----END PRIVATE KEY-----',
      ),
    hex32: () => pick(HEX, 32),
    hex40: () => pick(HEX, 40),
    hex64: () => pick(HEX, 64),
    hex128: () => pick(HEX, 128),
    b64_32: () => pick(BASE64, 32),
    b64_44: () => `${pick(BASE64, 43)}=`,
    basic: () => btoa(`svc-${pick(LOWER, 5)}:${pick(ALNUM, 14)}!`),
    alnum24: () => pick(ALNUM, 24),
    alnum40: () => pick(ALNUM, 40),
    // People's passwords: words, a digit or two and a symbol (`Pg-Pr0d#2024` from the issue).
    pw: () =>
      `${one(words)}${one(['-', '#', '!', '.', '@', '_'])}${pick(DIGITS, 2)}${one(words).toLowerCase()}${one(['!', '$', '%', '&', '#'])}${pick(DIGITS, 2)}`,
    // The same without `#`: dotenv reads an unquoted value up to a `#`, so a .env holds none there.
    pw_env: () =>
      `${one(words)}${one(['-', '!', '.', '@', '_'])}${pick(DIGITS, 2)}${one(words).toLowerCase()}${one(['!', '$', '%', '&'])}${pick(DIGITS, 2)}`,
    pw_random: () => `${pick(ALNUM, 12)}${one(['!', '#', '%'])}${pick(DIGITS, 2)}`,
    // Documentation's own example values, built from parts as well.
    aws_doc_id: () => p('AKIA', 'IOSFODNN7', 'EXAMPLE'),
    aws_doc_secret: () => p('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCY', 'EXAMPLEKEY'),
    pubkey: () => p('-----BEGIN PUBLIC ', 'KEY-----\n', pemBody(4), '\n-----END PUBLIC KEY-----'),
    cert: () => p('-----BEGIN CERT', 'IFICATE-----\n', pemBody(6), '\n-----END CERTIFICATE-----'),
    sha1: () => pick(HEX, 40),
    sha256: () => pick(HEX, 64),
    uuid: () => `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`,
    sri: () => `sha512-${pick(BASE64, 86)}==`,
    bcrypt: () => `$2b$12$${pick(`${ALNUM}./`, 53)}`,
  };
}

const TRUE_POSITIVES: Template[] = [
  {
    name: 'env: GitHub token',
    languageId: 'dotenv',
    template: 'GITHUB_TOKEN=[[{ghp}]]\nNODE_ENV=production',
  },
  {
    name: 'env: password from the issue',
    languageId: 'dotenv',
    template: 'DB_HOST=db.internal\nDB_PASS=[[{pw_env}]]',
  },
  {
    name: 'env: database URL',
    languageId: 'dotenv',
    template: 'DATABASE_URL=[[postgres://app:{pw_random}@db.internal:5432/app]]',
  },
  { name: 'env: Stripe live key', languageId: 'dotenv', template: 'STRIPE_SECRET_KEY=[[{sk_live}]]' },
  {
    name: 'env: AWS pair',
    languageId: 'dotenv',
    template: 'AWS_ACCESS_KEY_ID=[[{akia}]]\nAWS_SECRET_ACCESS_KEY=[[{aws_secret}]]\nAWS_REGION=eu-west-1',
  },
  { name: 'env: Slack bot token', languageId: 'dotenv', template: 'SLACK_BOT_TOKEN=[[{xoxb}]]' },
  { name: 'env: Slack app token', languageId: 'dotenv', template: 'SLACK_APP_TOKEN=[[{xapp}]]' },
  { name: 'env: Slack webhook', languageId: 'dotenv', template: 'ALERTS_WEBHOOK=[[{slackhook}]]' },
  { name: 'env: JWT secret (hex)', languageId: 'dotenv', template: 'JWT_SECRET=[[{hex64}]]' },
  { name: 'env: session secret (base64)', languageId: 'dotenv', template: 'SESSION_SECRET="[[{b64_32}]]"' },
  {
    name: 'env: Redis URL',
    languageId: 'dotenv',
    template: 'REDIS_URL=[[rediss://default:{pw_random}@cache:6380/0]]',
  },
  { name: 'env: GitLab token', languageId: 'dotenv', template: 'CI_JOB_PUSH=1\nGITLAB_TOKEN=[[{glpat}]]' },
  { name: 'env: Stripe webhook secret', languageId: 'dotenv', template: 'STRIPE_WEBHOOK_SECRET=[[{whsec}]]' },
  {
    name: 'env: password with a comment',
    languageId: 'dotenv',
    template: 'SMTP_PASSWORD=[[{pw_env}]] # rotated in May',
  },
  {
    name: 'env: export in shell',
    languageId: 'shellscript',
    template: 'export GH_TOKEN=[[{gho}]]\ngh pr list',
  },
  { name: 'ts: GitHub token literal', languageId: 'typescript', template: 'const token = "[[{ghp}]]";' },
  {
    name: 'ts: Octokit with fine-grained token',
    languageId: 'typescript',
    template: "const octokit = new Octokit({ auth: '[[{github_pat}]]' });",
  },
  {
    name: 'ts: Stripe client',
    languageId: 'typescript',
    template: 'const stripe = new Stripe("[[{sk_test}]]");',
  },
  {
    name: 'ts: bearer JWT in headers',
    languageId: 'typescript',
    template: 'await fetch(url, { headers: { Authorization: "Bearer [[{jwt}]]" } });',
  },
  {
    name: 'js: Slack WebClient',
    languageId: 'javascript',
    template: "const web = new WebClient('[[{xoxb}]]');",
  },
  {
    name: 'js: Firebase config',
    languageId: 'javascript',
    template: 'const firebaseConfig = {\n  apiKey: "[[{aiza}]]",\n  projectId: "shop-prod",\n};',
  },
  { name: 'ts: password constant', languageId: 'typescript', template: 'const dbPassword = "[[{pw}]]";' },
  {
    name: 'js: knex config',
    languageId: 'javascript',
    template:
      "module.exports = {\n  client: 'pg',\n  connection: {\n    host: 'db',\n    user: 'app',\n    password: '[[{pw}]]',\n  },\n};",
  },
  {
    name: 'ts: secret key hex',
    languageId: 'typescript',
    template: "export const secretKey = '[[{hex32}]]';",
  },
  {
    name: 'js: mongoose connect',
    languageId: 'javascript',
    template: 'await mongoose.connect("[[mongodb+srv://admin:{pw_random}@cluster0.abcde.mongodb.net/app]]");',
  },
  {
    name: 'ts: private key in a template literal',
    languageId: 'typescript',
    template: 'const privateKey = `[[{pem}]]`;',
  },
  {
    name: 'ts: escaped private key in JSON-like string',
    languageId: 'typescript',
    template: 'const sa = { private_key: "[[{pem_escaped}]]" };',
  },
  { name: 'py: AWS secret', languageId: 'python', template: 'AWS_SECRET_ACCESS_KEY = "[[{aws_secret}]]"' },
  { name: 'py: password', languageId: 'python', template: 'password = "[[{pw}]]"\nconnect(user, password)' },
  {
    name: 'py: SQLAlchemy URL',
    languageId: 'python',
    template: 'engine = create_engine("[[mysql://root:{pw_random}@localhost/db]]")',
  },
  { name: 'py: api key attribute', languageId: 'python', template: 'openai.api_key = "[[{alnum40}]]"' },
  { name: 'py: GitLab token', languageId: 'python', template: "GITLAB_TOKEN = '[[{glpat}]]'" },
  { name: 'py: Django secret key', languageId: 'python', template: "SECRET_KEY = '[[{pw_random}{b64_32}]]'" },
  {
    name: 'yaml: compose environment',
    languageId: 'dockercompose',
    template:
      'services:\n  db:\n    image: postgres:17\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: "[[{pw}]]"',
  },
  {
    name: 'yaml: bare password',
    languageId: 'yaml',
    template: 'database:\n  user: app\n  password: [[{pw}]]',
  },
  {
    name: 'yaml: slack token',
    languageId: 'yaml',
    template: 'slack:\n  token: [[{xoxp}]]\n  channel: "#ops"',
  },
  {
    name: 'yaml: k8s stringData',
    languageId: 'yaml',
    template: 'kind: Secret\nstringData:\n  api-key: [[{alnum40}]]',
  },
  { name: 'yaml: npm token', languageId: 'yaml', template: 'env:\n  NPM_TOKEN: [[{alnum40}]]' },
  {
    name: 'yaml: runner registration token',
    languageId: 'yaml',
    template: 'runners:\n  registration: [[{glrt}]]',
  },
  { name: 'json: client secret', languageId: 'json', template: '{\n  "client_secret": "[[{b64_32}]]"\n}' },
  { name: 'json: password', languageId: 'json', template: '{"user": "svc", "password": "[[{pw}]]"}' },
  {
    name: 'json: service account private key',
    languageId: 'json',
    template: '{"type": "service_account", "private_key": "[[{pem_escaped}]]"}',
  },
  {
    name: 'properties: Spring datasource',
    languageId: 'properties',
    template: 'spring.datasource.username=app\nspring.datasource.password=[[{pw}]]',
  },
  { name: 'php: array config', languageId: 'php', template: "'mysql' => [\n  'password' => '[[{pw}]]',\n]," },
  { name: 'go: token constant', languageId: 'go', template: 'const apiToken = "[[{hex40}]]"' },
  { name: 'go: short declaration', languageId: 'go', template: 'password := "[[{pw}]]"' },
  { name: 'ruby: secret key base', languageId: 'ruby', template: 'config.secret_key_base = "[[{hex128}]]"' },
  {
    name: 'shell: curl with a token',
    languageId: 'shellscript',
    template: 'curl -H "Authorization: token [[{ghp}]]" https://api.github.com/user',
  },
  { name: 'pem: RSA private key file', languageId: 'plaintext', template: '[[{pem_rsa}]]\n' },
  { name: 'pem: OpenSSH private key', languageId: 'plaintext', template: '[[{pem_openssh}]]\n' },
  {
    name: 'terraform: password',
    languageId: 'terraform',
    template: 'resource "db" "main" {\n  password = "[[{pw}]]"\n}',
  },
  {
    name: 'cs: token field',
    languageId: 'csharp',
    template: 'private const string AccessToken = "[[{alnum40}]]";',
  },
  { name: 'java: GitHub app token', languageId: 'java', template: 'String installation = "[[{ghs}]]";' },
  { name: 'ini: password', languageId: 'ini', template: '[client]\nuser = backup\npassword = [[{pw}]]' },
  { name: 'toml: token', languageId: 'toml', template: '[registry]\ntoken = "[[{alnum40}]]"' },
  { name: 'md: leaked token in docs', languageId: 'markdown', template: 'Use `[[{ghp}]]` to call the API.' },
  { name: 'rust: AWS temporary key id', languageId: 'rust', template: 'let key_id = "[[{asia}]]";' },
  { name: 'ts: restricted Stripe key', languageId: 'typescript', template: "const rk = '[[{rk_live}]]';" },
  {
    name: 'ts: connection string in an object',
    languageId: 'typescript',
    template: "const db = { url: '[[postgresql://reporting:{pw_random}@10.0.3.7:5432/warehouse]]' };",
  },
  { name: 'kotlin: passphrase', languageId: 'kotlin', template: 'val keystorePassphrase = "[[{pw}]]"' },
  { name: 'env: quoted password', languageId: 'dotenv', template: "MAIL_PASSWORD='[[{pw_random}]]'" },
  {
    name: 'cs: ADO.NET connection string',
    languageId: 'csharp',
    template: 'var cs = "Server=tcp:db.corp.net;Database=app;User ID=sa;Password=[[{pw_random}]];";',
  },
  {
    name: 'sh: docker login',
    languageId: 'shellscript',
    template: 'docker login -u ci -p [[{pw_random}]] registry.corp.net',
  },
  {
    name: 'py: keyword argument',
    languageId: 'python',
    template: 'conn = psycopg2.connect(host="db", password="[[{pw}]]")',
  },
  {
    name: 'xml: password element',
    languageId: 'xml',
    template: '<server>\n  <id>nexus</id>\n  <password>[[{pw_random}]]</password>\n</server>',
  },
  {
    name: 'http: basic auth header',
    languageId: 'http',
    template: 'GET /api HTTP/1.1\nAuthorization: Basic [[{basic}]]',
  },
  { name: 'js: short name', languageId: 'javascript', template: 'const config = { pass: "[[{pw}]]" };' },
];

const TRUE_NEGATIVES: Template[] = [
  { name: 'ts: password from a call', languageId: 'typescript', template: 'const password = getPassword();' },
  {
    name: 'ts: password from env',
    languageId: 'typescript',
    template: 'const password = process.env.DB_PASSWORD;',
  },
  { name: 'yaml: variable', languageId: 'yaml', template: 'password: ${DB_PASSWORD}' },
  { name: 'env: changeme', languageId: 'dotenv', template: 'DB_PASSWORD=changeme' },
  { name: 'env: empty', languageId: 'dotenv', template: 'DB_PASSWORD=\nAPI_TOKEN=' },
  {
    name: 'yaml: ansible template',
    languageId: 'yaml',
    template: 'POSTGRES_PASSWORD: "{{ vault_postgres_password }}"',
  },
  {
    name: 'yaml: actions secret',
    languageId: 'yaml',
    template: 'env:\n  token: "${{ secrets.GITHUB_TOKEN }}"',
  },
  { name: 'json: angle placeholder', languageId: 'json', template: '{"password": "<your-password>"}' },
  {
    name: 'env: AWS documentation example',
    languageId: 'dotenv',
    template: 'AWS_ACCESS_KEY_ID={aws_doc_id}',
  },
  {
    name: 'env: AWS documentation secret',
    languageId: 'dotenv',
    template: 'AWS_SECRET_ACCESS_KEY={aws_doc_secret}',
  },
  {
    name: 'ts: password field selector',
    languageId: 'typescript',
    template: 'const passwordField = document.querySelector("#password-input");',
  },
  { name: 'ts: label', languageId: 'typescript', template: 'const passwordLabel = "Enter your password";' },
  { name: 'ts: token type', languageId: 'typescript', template: 'const tokenType = "Bearer";' },
  { name: 'ts: min length', languageId: 'typescript', template: 'export const PASSWORD_MIN_LENGTH = 12;' },
  {
    name: 'py: reset URL',
    languageId: 'python',
    template: 'password_reset_url = "https://accounts.example.org/reset?token=abc"',
  },
  { name: 'ts: secret name', languageId: 'typescript', template: 'const secretName = "prod/db/password";' },
  { name: 'yaml: checksum', languageId: 'yaml', template: 'sha256: "{sha256}"' },
  { name: 'json: commit', languageId: 'json', template: '{"commit": "{sha1}"}' },
  { name: 'json: integrity', languageId: 'json', template: '"integrity": "{sri}"' },
  { name: 'json: keybinding', languageId: 'json', template: '{"key": "ctrl+shift+alt+p", "command": "x"}' },
  { name: 'ts: cache key', languageId: 'typescript', template: 'const cacheKey = "user:profile:42:v2";' },
  { name: 'py: uuid', languageId: 'python', template: 'request_id = "{uuid}"' },
  {
    name: 'py: token URL',
    languageId: 'python',
    template: 'token_url = "https://oauth2.googleapis.com/token"',
  },
  { name: 'py: auth method', languageId: 'python', template: 'auth_method = "oauth2"' },
  {
    name: 'py: csrf from request',
    languageId: 'python',
    template: "csrf_token = request.form['csrf_token']",
  },
  { name: 'py: empty compare', languageId: 'python', template: 'if password == "":\n    raise ValueError()' },
  { name: 'py: bcrypt hash', languageId: 'python', template: "password_hash = '{bcrypt}'" },
  {
    name: 'ts: token from storage',
    languageId: 'typescript',
    template: 'const token = localStorage.getItem("token");',
  },
  {
    name: 'md: truncated JWT',
    languageId: 'markdown',
    template: 'Send `Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIx...` with each request.',
  },
  { name: 'json: base64 JSON, not a JWT', languageId: 'json', template: '{"state": "eyJmb28iOiJiYXIifQ=="}' },
  {
    name: 'md: elided private key',
    languageId: 'markdown',
    template: '```\n-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----\n```',
  },
  { name: 'pem: public key', languageId: 'plaintext', template: '{pubkey}\n' },
  { name: 'pem: certificate', languageId: 'plaintext', template: '{cert}\n' },
  {
    name: 'env: documentation connection string',
    languageId: 'dotenv',
    template: 'DATABASE_URL=postgres://user:password@localhost:5432/db',
  },
  {
    name: 'env: connection string with a variable',
    languageId: 'dotenv',
    template: 'DATABASE_URL=postgres://app:${DB_PASS}@db/app',
  },
  {
    name: 'env: connection without userinfo',
    languageId: 'dotenv',
    template: 'DATABASE_URL=postgres://localhost:5432/app',
  },
  {
    name: 'env: connection without password',
    languageId: 'dotenv',
    template: 'MYSQL_URL=mysql://root@localhost/db',
  },
  {
    name: 'env: publishable key',
    languageId: 'dotenv',
    template: 'STRIPE_PUBLISHABLE_KEY=pk_live_{alnum24}',
  },
  {
    name: 'ts: a regex for tokens',
    languageId: 'typescript',
    template: 'const ghpPattern = /ghp_[A-Za-z0-9]{36}/;',
  },
  { name: 'yaml: flag', languageId: 'yaml', template: 'password: true\nsecret: false' },
  { name: 'yaml: count', languageId: 'yaml', template: 'token_count: 4096\nmax_tokens: 1024' },
  { name: 'json: null password', languageId: 'json', template: '{"password": null, "passphrase": ""}' },
  {
    name: 'py: policy regex',
    languageId: 'python',
    template: 'PASSWORD_REGEX = "^(?=.*[A-Z])(?=.*\\\\d).{8,}$"',
  },
  {
    name: 'json: i18n message',
    languageId: 'json',
    template: '{"auth.password.tooShort": "Password must be at least 8 characters"}',
  },
  { name: 'ts: tokenize', languageId: 'typescript', template: 'const tokens = tokenize(input);' },
  { name: 'js: passport', languageId: 'javascript', template: 'passport.use(new LocalStrategy(verify));' },
  {
    name: 'ts: constant with a prefix ending',
    languageId: 'typescript',
    template: "export const SECRET_KEY_PREFIX = 'vaultline.apiKey/';",
  },
  { name: 'json: author', languageId: 'json', template: '{"author": "Jane Doe <jane@example.org>"}' },
  {
    name: 'env: a Vaultline reference',
    languageId: 'dotenv',
    template: 'DB_PASSWORD=vaultline://Engineering/Databases/prod%20db/password',
  },
  { name: 'py: api key from env', languageId: 'python', template: 'api_key = os.getenv("API_KEY")' },
  { name: 'toml: version', languageId: 'toml', template: 'version = "1.2.3"\nauthors = ["Jane"]' },
  {
    name: 'py: compiled pattern',
    languageId: 'python',
    template: 'pat = re.compile(r"(?P<user>\\w+)@(?P<host>[\\w.]+)")',
  },
  {
    name: 'env: example file with x',
    languageId: 'dotenv',
    template:
      'STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx\nGITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  },
  {
    name: 'ts: lowercase word token',
    languageId: 'typescript',
    template: 'const token = "abcdefghijklmnopqrstuvwxyz";',
  },
  {
    name: 'py: client id',
    languageId: 'python',
    template: 'client_id = "1234567890-abc123def456.apps.googleusercontent.com"',
  },
  { name: 'css: design token', languageId: 'css', template: ':root { --token-color-primary: #ff0000; }' },
  {
    name: 'json: design token path',
    languageId: 'json',
    template: '{"token": "color.brand.primary.default"}',
  },
  { name: 'php: password from POST', languageId: 'php', template: "$password = $_POST['password'];" },
  {
    name: 'html: password input',
    languageId: 'html',
    template: '<input type="password" name="password" autocomplete="current-password">',
  },
  {
    name: 'py: budget with spaces',
    languageId: 'python',
    template: 'secret_santa_budget = "20 dollars max"',
  },
  { name: 'ts: session TTL', languageId: 'typescript', template: 'const sessionTokenTTL = 3600;' },
  {
    name: 'json: forgot password',
    languageId: 'json',
    template: '{"forgotPassword": "Forgot your password?"}',
  },
  {
    name: 'html: SRI hash',
    languageId: 'html',
    template: '<script src="/app.js" integrity="{sri}" crossorigin="anonymous"></script>',
  },
  {
    name: 'ts: public key',
    languageId: 'typescript',
    template: 'const publicKey = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE{alnum40}";',
  },
  {
    name: 'yaml: password confirmation template',
    languageId: 'yaml',
    template: 'password_confirmation: "{{ password }}"',
  },
  { name: 'ts: token from array', languageId: 'typescript', template: 'const token = tokens[i];' },
  { name: 'ts: template bearer', languageId: 'typescript', template: 'const header = `Bearer ${token}`;' },
  { name: 'py: redacted', languageId: 'python', template: 'password = "********"' },
  { name: 'env: placeholder word', languageId: 'dotenv', template: 'API_TOKEN=your-api-token-here' },
  {
    name: 'yaml: secret reference by name',
    languageId: 'yaml',
    template: 'valueFrom:\n  secretKeyRef:\n    name: db-credentials\n    key: password',
  },
  { name: 'sh: read password', languageId: 'shellscript', template: 'read -s -p "Password: " PASSWORD' },
  {
    name: 'ts: snake case setting',
    languageId: 'typescript',
    template: "const auth = { strategy: 'session_cookie_based_login' };",
  },
  {
    name: 'md: prose about tokens',
    languageId: 'markdown',
    template: 'Set `GITHUB_TOKEN` to a token with the `repo` scope; rotate the secret every 90 days.',
  },
  {
    name: 'ts: hashed bundle name',
    languageId: 'typescript',
    template: 'const authBundle = "auth.{hex32}.js";',
  },
  {
    name: 'ts: CSS class hash',
    languageId: 'typescript',
    template: 'const authClass = "css-1q2w3e4r5t6y7u8i9o";',
  },
  {
    name: 'env: auth domain',
    languageId: 'dotenv',
    template: 'AUTH_DOMAIN=shop-prod.firebaseapp.com\nNEXTAUTH_URL=http://localhost:3000',
  },
  {
    name: 'yaml: CloudFormation ref',
    languageId: 'yaml',
    template: 'MasterUserPassword: !Ref DbPassword\nsecret: !vault |',
  },
  {
    name: 'env: key ARN',
    languageId: 'dotenv',
    template: 'ENCRYPTION_KEY_ID=arn:aws:kms:eu-west-1:123456789012:key/{uuid}',
  },
  {
    name: 'yaml: rotation days',
    languageId: 'yaml',
    template: 'access_key_rotation_days: 90\npasswordless: true',
  },
  {
    name: 'md: Basic scheme described',
    languageId: 'markdown',
    template:
      'The server answers 401 with `WWW-Authenticate: Basic realm="api"`; send `Authorization: Basic <base64>`.',
  },
  { name: 'http: template header', languageId: 'http', template: 'X-Api-Key: {{apiKey}}' },
  { name: 'ts: empty typed token', languageId: 'typescript', template: 'let authToken: string = "";' },
  { name: 'go: key from env', languageId: 'go', template: 'apiKey := os.Getenv("API_KEY")' },
  {
    name: 'json: lockfile name',
    languageId: 'json',
    template: '"node_modules/js-tokens": {"version": "4.0.0"}',
  },
];

/**
 * Builds the corpus: fills every template with generated values and reads the marked spans.
 *
 * @param seed Another seed gives other values of the same shapes.
 */
export function buildCorpus(seed = 20_261_123): { positives: CorpusCase[]; negatives: CorpusCase[] } {
  const generators = makeGenerators(seeded(seed));
  const fill = (template: string) =>
    template.replace(/\{([a-z0-9_]+)\}/g, (whole, name: string) => generators[name]?.() ?? whole);
  const build = (entry: Template): CorpusCase => {
    const secrets: string[] = [];
    const text = fill(entry.template).replace(/\[\[([\s\S]*?)\]\]/g, (_, secret: string) => {
      secrets.push(secret);
      return secret;
    });
    return { name: entry.name, languageId: entry.languageId, text, secrets };
  };
  return { positives: TRUE_POSITIVES.map(build), negatives: TRUE_NEGATIVES.map(build) };
}

/** Precision and recall of a detector over the corpus; a finding counts if it overlaps a marked span. */
export interface Score {
  truePositives: number;
  falsePositives: number;
  falseNegatives: number;
  precision: number;
  recall: number;
  misses: string[];
  falseAlarms: string[];
}

export function score(
  corpus: { positives: CorpusCase[]; negatives: CorpusCase[] },
  detect: (text: string, languageId: string) => string[],
): Score {
  let truePositives = 0;
  let falsePositives = 0;
  let falseNegatives = 0;
  const misses: string[] = [];
  const falseAlarms: string[] = [];
  for (const entry of [...corpus.positives, ...corpus.negatives]) {
    const found = detect(entry.text, entry.languageId);
    const matched = new Set<string>();
    for (const literal of found) {
      // A finding that covers the secret (a whole `NAME=value` line) counts too: the comparison is fair
      // to detectors whose ranges are wider.
      const secret = entry.secrets.find(
        (s) => s === literal || literal.includes(s) || (s.includes(literal) && literal.length >= 8),
      );
      if (secret !== undefined && !matched.has(secret)) {
        matched.add(secret);
        truePositives++;
      } else if (secret === undefined) {
        falsePositives++;
        falseAlarms.push(`${entry.name}: ${literal.slice(0, 12)}…`);
      }
    }
    for (const secret of entry.secrets) {
      if (!matched.has(secret)) {
        falseNegatives++;
        misses.push(entry.name);
      }
    }
  }
  return {
    truePositives,
    falsePositives,
    falseNegatives,
    precision: truePositives / Math.max(1, truePositives + falsePositives),
    recall: truePositives / Math.max(1, truePositives + falseNegatives),
    misses,
    falseAlarms,
  };
}
