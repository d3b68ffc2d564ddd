import { ACCESS_TYPES, type AccessType } from '@vaultline/protocol';
import type { Database, Queryable } from '@vaultline/store';
import type { Actor } from './actor.ts';
import { conflict, invalid, notFound } from './errors.ts';
import { checkText } from './text-rules.ts';
import { auditWrite } from './write-audit.ts';

/** A vault user. */
export interface UserInfo {
  id: number;
  login: string;
  email: string;
  roles: string[];
}

function checkLogin(login: string): string {
  checkText(login, 'the login', 100);
  if (!/^[A-Za-z0-9._@-]{1,100}$/.test(login)) {
    throw invalid(
      `Expected a login of letters, digits, '.', '_', '@' or '-', received ${JSON.stringify(login.slice(0, 40))}.`,
    );
  }
  return login;
}

/** Creates a user. */
export async function createUser(
  db: Database,
  actor: Actor,
  user: { login: string; email?: string | undefined },
): Promise<{ id: number }> {
  const login = checkLogin(user.login);
  const email = checkText(user.email ?? '', 'the email', 200);
  return db.transaction(async (tx) => {
    const taken = await tx.query('SELECT 1 FROM users WHERE login = $1', [login]);
    if (taken.length > 0) throw conflict(`A user with login ${JSON.stringify(login)} already exists.`);
    const [row] = await tx.query<{ id: number }>(
      'INSERT INTO users (login, email) VALUES ($1, $2) RETURNING id',
      [login, email],
    );
    const id = Number(row!.id);
    await auditWrite(tx, actor, 'createUser', `user ${id} ${login}`);
    return { id };
  });
}

/** Finds a user id by login. */
export async function userIdOf(db: Queryable, login: string): Promise<number> {
  const rows = await db.query<{ id: number }>('SELECT id FROM users WHERE login = $1', [login]);
  if (!rows[0])
    throw notFound(`User does not exist: ${JSON.stringify(login.slice(0, 100))}.`, 'unknown_user');
  return Number(rows[0].id);
}

/** Lists users with their roles. */
export async function listUsers(db: Queryable): Promise<UserInfo[]> {
  const rows = await db.query<{ id: number; login: string; email: string; roles: string | null }>(
    `SELECT u.id, u.login, u.email, string_agg(r.name, ',' ORDER BY r.name) AS roles FROM users u
       LEFT JOIN user_roles ur ON ur.user_id = u.id LEFT JOIN roles r ON r.id = ur.role_id
      GROUP BY u.id, u.login, u.email ORDER BY u.id`,
  );
  return rows.map((row) => ({
    id: Number(row.id),
    login: row.login,
    email: row.email,
    roles: row.roles ? row.roles.split(',') : [],
  }));
}

/** Creates a role. */
export async function createRole(
  db: Database,
  actor: Actor,
  role: { name: string },
): Promise<{ id: number }> {
  const name = checkText(role.name.trim(), 'the role name', 100);
  if (name === '') throw invalid('Expected a non-empty role name.');
  return db.transaction(async (tx) => {
    const taken = await tx.query('SELECT 1 FROM roles WHERE name = $1', [name]);
    if (taken.length > 0) throw conflict(`A role named ${JSON.stringify(name)} already exists.`);
    const [row] = await tx.query<{ id: number }>('INSERT INTO roles (name) VALUES ($1) RETURNING id', [name]);
    const id = Number(row!.id);
    await auditWrite(tx, actor, 'createRole', `role ${id} ${name}`);
    return { id };
  });
}

async function roleIdOf(db: Queryable, name: string): Promise<number> {
  const rows = await db.query<{ id: number }>('SELECT id FROM roles WHERE name = $1', [name]);
  if (!rows[0]) throw notFound(`Role does not exist: ${JSON.stringify(name.slice(0, 100))}.`);
  return Number(rows[0].id);
}

/** Lists roles with their folder rights. */
export async function listRoles(db: Queryable) {
  const roles = await db.query<{ id: number; name: string }>('SELECT id, name FROM roles ORDER BY id');
  const rights = await db.query<{ role_id: number; folder_id: number; access_type: AccessType }>(
    'SELECT role_id, folder_id, access_type FROM role_rights ORDER BY folder_id',
  );
  return roles.map((role) => ({
    id: Number(role.id),
    name: role.name,
    rights: rights
      .filter((right) => Number(right.role_id) === Number(role.id))
      .map((right) => ({ folderId: Number(right.folder_id), access: right.access_type })),
  }));
}

/** Gives a user a role (idempotent). */
export async function assignRole(db: Database, actor: Actor, login: string, role: string): Promise<void> {
  await db.transaction(async (tx) => {
    const userId = await userIdOf(tx, login);
    const roleId = await roleIdOf(tx, role);
    await tx.query('INSERT INTO user_roles (user_id, role_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      userId,
      roleId,
    ]);
    await auditWrite(tx, actor, 'assignRole', `user ${login} role ${role}`);
  });
}

/** Takes a role from a user. */
export async function unassignRole(db: Database, actor: Actor, login: string, role: string): Promise<void> {
  await db.transaction(async (tx) => {
    const userId = await userIdOf(tx, login);
    const roleId = await roleIdOf(tx, role);
    await tx.query('DELETE FROM user_roles WHERE user_id = $1 AND role_id = $2', [userId, roleId]);
    await auditWrite(tx, actor, 'unassignRole', `user ${login} role ${role}`);
  });
}

/** Sets a role's right on a public folder (replaces a previous one). */
export async function grant(
  db: Database,
  actor: Actor,
  role: string,
  folderId: number,
  access: string,
): Promise<void> {
  if (!(ACCESS_TYPES as readonly string[]).includes(access)) {
    throw invalid(
      `Expected a right among ${ACCESS_TYPES.join(', ')}, received ${JSON.stringify(access.slice(0, 10))}.`,
    );
  }
  if (!Number.isSafeInteger(folderId) || folderId < 1)
    throw invalid(`Expected a folder id, received ${String(folderId)}.`);
  await db.transaction(async (tx) => {
    const roleId = await roleIdOf(tx, role);
    const folders = await tx.query<{ personal_owner: number | null }>(
      'SELECT personal_owner FROM folders WHERE id = $1',
      [folderId],
    );
    if (!folders[0]) throw notFound(`Folder ID does not exist: ${folderId}.`);
    if (folders[0].personal_owner !== null)
      throw invalid(`Folder ${folderId} is a personal folder: only its owner may access it.`);
    await tx.query(
      `INSERT INTO role_rights (role_id, folder_id, access_type) VALUES ($1, $2, $3)
       ON CONFLICT (role_id, folder_id) DO UPDATE SET access_type = EXCLUDED.access_type`,
      [roleId, folderId, access],
    );
    await auditWrite(tx, actor, 'grant', `role ${role} folder ${folderId} ${access}`);
  });
}

/** Removes a role's right on a folder. */
export async function revoke(db: Database, actor: Actor, role: string, folderId: number): Promise<void> {
  await db.transaction(async (tx) => {
    const roleId = await roleIdOf(tx, role);
    await tx.query('DELETE FROM role_rights WHERE role_id = $1 AND folder_id = $2', [roleId, folderId]);
    await auditWrite(tx, actor, 'revoke', `role ${role} folder ${folderId}`);
  });
}
