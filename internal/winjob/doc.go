// Package winjob holds a Windows session in a job object: it makes a job
// that ends every process in it when its last handle closes
// (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, no breakaway allowed), creates the
// Engine suspended inside that job, and holds the job for package end
// ([Holder]): end waits on the job's completion port for it to empty.
//
// The job is the gate and the guard at once. A process created by
// [Job.StartSuspended] belongs to the job before its first instruction
// runs, so everything it starts belongs to it too; and only this process
// holds a handle to the job (it is never inheritable), so when this
// process ends, however it ends, the system closes that handle and ends
// every process of the job.
//
// The failure rule: StartSuspended never returns a process that is
// outside the job. Where the job list attribute is refused, the process is
// assigned while it is still suspended, and one that cannot be assigned is
// terminated before it has run and reported as [ErrNotInJob].
package winjob
