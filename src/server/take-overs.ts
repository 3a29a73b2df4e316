/**
 * One run's take-overs and deletes of existing objects. A create may end with an object that existed
 * before it (a keypair whose name and public key are the configured ones: CreateContext.takeOver).
 * When that object is also the one a delete of the same run removes (the old half of a resource
 * renamed without a `moved` block or an alias, or of a create-before-delete replacement), the two
 * must not both act on it: the delete would take the object from the resource that now holds it.
 * Whichever comes first decides: a delete that finds the object taken over deletes nothing; a create
 * that finds the object being deleted waits for that delete and, once the object is gone, makes its
 * own. Terraform runs the two beside each other (they are different resources), the Pulumi engine one
 * after the other; both run in one provider process, which is what this records.
 */
export class TakeOvers {
  /** Objects a create took over, by type and id, with what holds them now (a Pulumi URN, when known). */
  private readonly held = new Map<string, string | undefined>()
  /** Deletes in flight, by type and id: a create told no waits for its delete before it tries again. */
  private readonly deleting = new Map<string, Promise<unknown>>()
  /**
   * Objects a delete of this run ran on, whatever its outcome: one it removed is gone, and one whose
   * delete failed (a service error, a Ctrl-C) is still held by the resource that delete was for, which
   * stays in the state; the next apply deletes it again, so a take-over would leave a dead id.
   */
  private readonly deleted = new Set<string>()

  /** Whether a create may take the object over; true records it as held by `holder`. */
  async takeOver(type: string, id: string, holder: string | undefined): Promise<boolean> {
    const key = keyOf(type, id)
    if (this.deleted.has(key)) {
      // No, whatever the delete's outcome; a create sent again once it is done finds the name free if it succeeded.
      await this.deleting.get(key)?.catch(() => undefined)
      return false
    }
    this.held.set(key, holder)
    return true
  }

  /** The object's holder when a create of this run took it over (then it must not be deleted). */
  holderOf(type: string, id: string): { readonly holder: string | undefined } | undefined {
    const key = keyOf(type, id)
    return this.held.has(key) ? { holder: this.held.get(key) } : undefined
  }

  /**
   * Runs the delete of an object not taken over, recorded while it runs and after it, whatever its
   * outcome. The caller has checked holderOf in the same turn.
   */
  async delete<T>(type: string, id: string, run: () => Promise<T>): Promise<T> {
    const key = keyOf(type, id)
    const running = run()
    this.deleting.set(key, running)
    this.deleted.add(key)
    try {
      return await running
    } finally {
      if (this.deleting.get(key) === running) this.deleting.delete(key)
    }
  }
}

const keyOf = (type: string, id: string) => `${type}\u0000${id}`
