/** The element with this id, of the expected type; a missing one is a bug in index.html. */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const el = document.getElementById(id);
  if (!(el instanceof type)) throw new Error(`demo page: #${id} is missing or not a ${type.name}`);
  return el;
}
