package nlp

import "strings"

// stopwords split key phrases and are never names. Lists for the
// languages whose words are split by spaces and that whatlanggo tells
// apart well; key phrases are computed only for these.
var stopwords = map[string]map[string]bool{
	"en": setOf(strings.Fields(`a about above after again against all almost also although always am among an
		and another any anyone anything are around as at back be because been before being below between both
		but by can cannot could did do does doing done down during each either else enough etc even ever every
		few for from further get gets getting got had has have having he her here hers herself him himself his
		how however i if in into is it its itself just last least less let like made make many may me might
		more most much must my myself neither never new no nor not now of off often on once one only or other
		others our ours ourselves out over own per perhaps please quite rather really said same say says see
		seem seemed several shall she should since so some something still such than that the their theirs them
		themselves then there these they thing things this those though through thus to too toward towards
		two under until up upon us use used using very via was we well were what whatever when where whether
		which while who whom whose why will with within without would yes yet you your yours yourself yourselves
		mr mrs ms dr also just i'm i've i'd i'll you're you've we're we've they're they've it's that's there's
		don't doesn't didn't isn't aren't wasn't weren't won't wouldn't can't couldn't shouldn't let's`)...),
	"fr": setOf(strings.Fields(`a à ai aie ainsi alors as au aucun aussi autre aux avec avoir avait avant bien
		c ça car ce cela celle celles celui ces cet cette ceux chaque chez comme comment d dans de des deux doit
		donc dont du elle elles en encore est et été être eu fait faire il ils j je jusqu l la le les leur leurs
		lui m ma mais me même mes moi moins mon n ne ni nos notre nous on ont ou où par parce pas peu peut plus
		pour pourquoi qu quand que quel quelle quelles quels qui s sa sans se sera ses si son sont sous sur ta te
		tes toi ton tous tout toute toutes très tu un une vos votre vous y c'est qu'il qu'elle d'un d'une l'on`)...),
	"es": setOf(strings.Fields(`a al algo algunos ante antes como con contra cual cuando de del desde donde
		dos durante e el ella ellas ellos en entre era es esa esas ese eso esos esta estaba estado estas este
		esto estos fue fueron ha había han hasta hay la las le les lo los más me mi mientras mis muy nada ni no
		nos nosotros o os otra otras otro otros para pero poco por porque que quien se sea según ser si sido
		sin sobre su sus también tanto te tiene todo todos tu tus un una uno unos y ya yo él`)...),
	"de": setOf(strings.Fields(`aber alle allem allen aller alles als also am an andere anderen auch auf aus
		bei beim bin bis bist da damit dann das dass dein deine dem den denn der des dessen deshalb die dies
		diese diesem diesen dieser dieses doch dort du durch ein eine einem einen einer eines er es etwas euch
		euer für gegen gewesen hab habe haben hat hatte hatten hier hin hinter ich ihm ihn ihnen ihr ihre im in
		indem ins ist jede jedem jeden jeder jedes jetzt kann kein keine können machen man mein meine mit muss
		nach nicht nichts noch nun nur ob oder ohne sehr sein seine sich sie sind so solche soll sondern sonst
		über um und uns unser unter viel vom von vor war waren was weil welche wenn wer werden wie wieder will
		wir wird wo wurde wurden zu zum zur zwar zwischen`)...),
	"it": setOf(strings.Fields(`a ad al alla alle allo agli ai anche ancora avere aveva c che chi ci come con
		contro cui da dal dalla dalle dei del della delle dello degli di dove e è ed era erano essere fa fra gli
		ha hanno i il in io l la le lei lo loro lui ma mi mio molto ne nei nel nella nelle no noi non nostro o
		per perché più poi quale quando quello questa questo qui se sei si sia sono su sua sue suo sul sulla
		tra tu tutti tutto un una uno vi voi`)...),
	"pt": setOf(strings.Fields(`a à ao aos as às até com como da das de dela dele do dos e é ela elas ele eles
		em entre era essa esse esta este eu foi foram há isso isto já lhe mais mas me mesmo meu minha muito na
		não nas nem no nos nós o os ou para pela pelas pelo pelos por qual quando que quem se sem ser seu sua
		são também te tem tinha um uma você`)...),
	"nl": setOf(strings.Fields(`aan al als bij dan dat de deze die dit doch door dus een en er ge geen had heb
		hebben heeft hem het hier hij hoe hun ik in is ja je kan kon maar me meer men met mij mijn na naar niet
		niets nog nu of om omdat ons ook op over reeds te tegen toch toen tot u uit uw van veel voor want was wat
		we wel werd wie wij wil worden zal ze zei zelf zich zij zijn zo zonder zou`)...),
}

// commonCapitalised are words that start sentences or headings in capitals
// but name nothing: never an entity on their own.
var commonCapitalised = setOf(strings.Fields(`monday tuesday wednesday thursday friday saturday sunday january
	february march april may june july august september october november december today yesterday tomorrow
	chapter section figure table page part appendix introduction conclusion summary abstract note notes
	dear hello hi thanks thank regards best yes no ok okay please welcome sir madam mr mrs ms dr prof
	north south east west northern southern eastern western central upper lower greater new old saint santa
	san great first second third total subject re fw fwd from to cc date sent the a an`)...)
