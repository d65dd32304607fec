package storetest

import "testing"

// Run runs the whole suite against backend be, each test as a subtest of
// t named after the behaviour it holds the store to.
func Run(t *testing.T, be Backend) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, &be) })
	}
}

var tests = []struct {
	name string
	fn   func(*testing.T, *Backend)
}{
	{"AgentBatchRoundTripsThroughLoadAgents", testAgentBatchRoundTripsThroughLoadAgents},
	{"SaveAgentsAppendsOneFeedRowPerSession", testSaveAgentsAppendsOneFeedRowPerSession},
	{"SaveAgentsRefusesAnOlderGeneration", testSaveAgentsRefusesAnOlderGeneration},
	{"AgentEventsAreTrimmedToTheLatest", testAgentEventsAreTrimmedToTheLatest},
	{"SaveAgentsMergesARecordIntoItsSurvivor", testSaveAgentsMergesARecordIntoItsSurvivor},
	{"AgentTouchedMatchesByProviderIDOrWaitsForTheServer", testAgentTouchedMatchesByProviderIDOrWaitsForTheServer},
	{"AgentTouchedRefusesWhatItCannotPlace", testAgentTouchedRefusesWhatItCannotPlace},
	{"AgentLastSeenCountsHookEventsPerClient", testAgentLastSeenCountsHookEventsPerClient},
	{"PruneAgentsDropsOldSessionsWithTheirRows", testPruneAgentsDropsOldSessionsWithTheirRows},
	{"PruneAgentsTrimsOldAgentFeedRows", testPruneAgentsTrimsOldAgentFeedRows},
	{"LoadAgentsLeavesOutSessionsLongSilent", testLoadAgentsLeavesOutSessionsLongSilent},
	{"CommandQueue", testCommandQueue},
	{"Comments", testComments},
	{"Attachments", testAttachments},
	{"AddCommentAnswersWhatIsStored", testAddCommentAnswersWhatIsStored},
	{"EveryWriteAppendsFeedRows", testEveryWriteAppendsFeedRows},
	{"AnotherHandlesWritesAreSeen", testAnotherHandlesWritesAreSeen},
	{"WatchHandsOverEveryRowOnce", testWatchHandsOverEveryRowOnce},
	{"Parents", testParents},
	{"MergeAndUnmerge", testMergeAndUnmerge},
	{"SuggestGroups", testSuggestGroups},
	{"Handoff", testHandoff},
	{"Builds", testBuilds},
	{"CreateIssue", testCreateIssue},
	{"DefaultSeed", testDefaultSeed},
	{"StatusRules", testStatusRules},
	{"UpdateIssue", testUpdateIssue},
	{"ListFacetsIgnoreTheirOwnFilter", testListFacetsIgnoreTheirOwnFilter},
	{"ListSortsAndPagesMatchIndependentKeys", testListSortsAndPagesMatchIndependentKeys},
	{"ListSummaryKeepsMetadata", testListSummaryKeepsMetadata},
	{"ListErrors", testListErrors},
	{"ListRowWithSeparatorInTitle", testListRowWithSeparatorInTitle},
	{"Plans", testPlans},
	{"Projects", testProjects},
	{"NumbersAreNeverReused", testNumbersAreNeverReused},
	{"ProjectOverview", testProjectOverview},
	{"ProjectsCountWhatTheOverviewCounts", testProjectsCountWhatTheOverviewCounts},
	{"SearchRanksTitleBodyComments", testSearchRanksTitleBodyComments},
	{"SearchWordsSideBySideRankHigher", testSearchWordsSideBySideRankHigher},
	{"SearchModes", testSearchModes},
	{"SearchFallsThroughWhenFiltersLeaveNothing", testSearchFallsThroughWhenFiltersLeaveNothing},
	{"SearchBoostArea", testSearchBoostArea},
	{"SearchFollowsEdits", testSearchFollowsEdits},
	{"ExcerptsFollowTheQuery", testExcerptsFollowTheQuery},
	{"EverySortMatchesItsDefinition", testEverySortMatchesItsDefinition},
	{"ConcurrentWritersOnTwoHandlesLoseNothing", testConcurrentWritersOnTwoHandlesLoseNothing},
	{"CommandsAreDeliveredOnceAcrossHandles", testCommandsAreDeliveredOnceAcrossHandles},
	{"BackfillSeedSeedsAgentIssuesAndChecksOnly", testBackfillSeedSeedsAgentIssuesAndChecksOnly},
	{"BuildStateFollowsPublications", testBuildStateFollowsPublications},
	{"AttachmentDescribesWhatOpenServes", testAttachmentDescribesWhatOpenServes},
	{"LastAgentTouchFollowsTouches", testLastAgentTouchFollowsTouches},
	{"OwnerEventsAreTheOwnersActivityOnly", testOwnerEventsAreTheOwnersActivityOnly},
	{"ProgressLandsStepAndCommentTogether", testProgressLandsStepAndCommentTogether},
	{"IssueTailKeepsTheNewest", testIssueTailKeepsTheNewest},
	{"BriefCountsTheUnmergedAndTheHandoff", testBriefCountsTheUnmergedAndTheHandoff},
	{"ManagedSessionsKeepTheirRecords", testManagedSessionsKeepTheirRecords},
	{"AgentByLaunchFindsTheLatestSessionOfALaunch", testAgentByLaunchFindsTheLatestSessionOfALaunch},
}
