//! The numbers that name things between the MPI layer's modules and its
//! users: ranks, tags, communicators, groups, requests and messages.
//! Each id is its own type so that one kind cannot stand for another.

/// A rank in some communicator.
pub type Rank = u32;

/// An MPI tag (non-negative in user programs; collectives use a reserved
/// tag space the MPI layer keeps apart from user tags).
pub type Tag = i32;

/// A communicator, named by the program: [`CommId::WORLD`] is
/// `MPI_COMM_WORLD`; `CommDup` and `CommSplit` introduce new ids.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CommId(pub u32);

impl CommId {
    /// `MPI_COMM_WORLD`.
    pub const WORLD: CommId = CommId(0);
}

/// A process group, named by the program (`MPI_Group`): a rank-local
/// list of processes. [`GroupId::EMPTY`] is `MPI_GROUP_EMPTY`; the group
/// operations ([`Op::CommGroup`](crate::Op::CommGroup), [`Op::GroupIncl`](crate::Op::GroupIncl), ...) introduce new
/// ids, and [`Op::GroupFree`](crate::Op::GroupFree) forgets one (a later group may reuse it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GroupId(pub u32);

impl GroupId {
    /// `MPI_GROUP_EMPTY`.
    pub const EMPTY: GroupId = GroupId(0);
}

/// A request handle, chosen by the program and unique among the rank's
/// requests in flight (trace readers reuse the recorded handles).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReqId(pub u64);

/// A message in the simulator, from its send's post to its receive's
/// completion; a later message may take the number again.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct MsgId(pub u32);

impl MsgId {
    /// The id as an index into per-message tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
